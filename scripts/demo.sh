#!/usr/bin/env bash
# Installs what is missing, builds, brings up the lab and opens the GUI.
#   scripts/demo.sh              the GUI (under Xvfb with a screenshot when there is no display)
#   scripts/demo.sh --headless   launch a sample cluster on the lab and print its tree
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
cd "$SRC_DIR"

headless=0
for arg in "$@"; do
    case $arg in
    --headless) headless=1 ;;
    -h | --help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "demo: unknown option $arg" >&2; exit 2 ;;
    esac
done

./scripts/setup.sh
./scripts/build.sh
if ! ./scripts/lab.sh status >/dev/null 2>&1; then
    ./scripts/lab.sh up
fi
eval "$(./scripts/lab.sh env)"
./scripts/lab.sh status

# The demo keeps its own state next to the build, so it never touches an admin's real store.
export CLUSTERDECK_STORE=${CLUSTERDECK_STORE:-sqlite://$BUILD_DIR/demo/state.db}
mkdir -p "$BUILD_DIR/demo"
ctl="$BUILD_DIR/app/cli/clusterdeckctl"
gui="$BUILD_DIR/app/gui/clusterdeck"

# Register the lab hosts (once), make them one swarm, and launch the sample session (once).
for h in $CLUSTERDECK_LAB_HOSTS; do
    up=${h^^}
    endpoint_var=CLUSTERDECK_LAB_${up}_DOCKER
    addr_var=CLUSTERDECK_LAB_${up}_ADDR
    if ! "$ctl" host inspect "$h" >/dev/null 2>&1; then
        "$ctl" host add "$h" --docker "${!endpoint_var}" --address "${!addr_var}" --label lab=yes
    fi
done
"$ctl" network setup
session=${DEMO_SESSION:-demo-basic}
launched=0
if ! "$ctl" show "$session" --json 2>/dev/null | grep -q '"status": *"RUNNING"'; then
    "$ctl" rm "$session" >/dev/null 2>&1 || true
    "$ctl" launch templates/lab-basic.yaml --name "$session" --count worker=4 --mode multi-node
    launched=1
fi

if [[ $headless -eq 1 ]]; then
    [[ $launched -eq 1 ]] || "$ctl" show "$session" # launch printed the tree already
    echo
    echo "demo: the session keeps running in the demo's own store; remove it with:"
    echo "  $ctl --store $CLUSTERDECK_STORE rm $session"
    exit 0
fi

if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; then
    exec "$gui"
fi
shot="$BUILD_DIR/demo/screenshot.png"
echo "demo: no display; running the GUI under Xvfb for 5 s and saving a screenshot to $shot"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c \
    "'$gui' & pid=\$!; sleep 5; import -window root '$shot'; kill \$pid" 
echo "demo: screenshot at $shot"
