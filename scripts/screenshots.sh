#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png from the real console under xvfb-run, with the lab's hosts
# registered in a throw-away store and one lab-basic session running (plus first-run.png from an
# empty store).
#   scripts/screenshots.sh [BUILD_DIR]      (default: build; needs clusterdeck and clusterdeckctl)
# Needs the lab: scripts/lab.sh up (this script never starts or stops it).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
gui="$build/app/gui/clusterdeck"
ctl="$build/app/cli/clusterdeckctl"
out="$here/docs/screenshots"
for bin in "$gui" "$ctl"; do
    [[ -x "$bin" ]] || { echo "error: $bin is not built" >&2; exit 1; }
done
command -v xvfb-run >/dev/null || { echo "error: xvfb-run is missing (apt-get install xvfb)" >&2; exit 1; }
eval "$("$here/scripts/lab.sh" env)"
[[ -n "${CLUSTERDECK_LAB_HOSTS:-}" ]] || { echo "error: the lab is not up" >&2; exit 1; }

work="$(mktemp -d)"
store="sqlite://$work/state.db"
session=""
cleanup() {
    if [[ -n "$session" ]]; then "$ctl" --store "$store" rm "$session" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

for h in $CLUSTERDECK_LAB_HOSTS; do
    up="${h^^}"
    docker_var="CLUSTERDECK_LAB_${up}_DOCKER"
    addr_var="CLUSTERDECK_LAB_${up}_ADDR"
    "$ctl" --store "$store" host add "$h" --docker "${!docker_var}" --address "${!addr_var}" \
        --label "zone=lab" >/dev/null
done
session="shot-$(date +%H%M%S)"
"$ctl" --store "$store" launch "$here/templates/lab-basic.yaml" --name "$session" \
    --count worker=3 >/dev/null
sleep 3 # let the master's http port answer

# A launch that pulls the lab registry's registry-only image on three hosts (launch-pulling.png).
export DOCKER_CONFIG="$work/docker-config"
pull_template=""
if [[ -n "${CLUSTERDECK_LAB_REGISTRY_ONLY_IMAGE:-}" ]]; then
    echo "$CLUSTERDECK_LAB_REGISTRY_PASSWORD" | "$ctl" --store "$store" registry login \
        "$CLUSTERDECK_LAB_REGISTRY" -u "$CLUSTERDECK_LAB_REGISTRY_USER" --password-stdin >/dev/null
    "$ctl" --store "$store" image rm "$CLUSTERDECK_LAB_REGISTRY_ONLY_IMAGE" >/dev/null || true
    pull_template="$work/pull-on-three-hosts.yaml"
    cat >"$pull_template" <<EOF
apiVersion: clusterdeck/v1
kind: Cluster
name: pull-on-three-hosts
description: a registry-only image, pulled by every host during the launch
mode: multi-node
roles:
  - name: master
    count: 1
    task: {image: "$CLUSTERDECK_LAB_REGISTRY_ONLY_IMAGE", command: [sleep, "3600"]}
  - name: worker
    count: 6
    max: 12
    task: {image: "$CLUSTERDECK_LAB_REGISTRY_ONLY_IMAGE", command: [sleep, "3600"]}
EOF
fi

mkdir -p "$out"
# The first-run view: a store with no host and no session (first-run.png only).
xvfb-run -a -s "-screen 0 2100x1000x24" \
    "$gui" --store "sqlite://$work/empty.db" --no-reconcile --screenshot-dir "$out"
# Every view of the lab's store, and the sessions view in the dark palette (sessions-dark.png).
CLUSTERDECK_SCREENSHOT_PULL_TEMPLATE="$pull_template" xvfb-run -a -s "-screen 0 2100x1000x24" \
    "$gui" --store "$store" --no-reconcile --screenshot-dir "$out"
# The Add Host dialog refusing an ssh:// host's unknown key and offering to trust it
# (add-host-ssh.png), from its lab test against h1's sshd.
if [[ -x "$build/tests/gui/tst_addhost_lab" ]]; then
    CLUSTERDECK_SCREENSHOT_DIR="$out" xvfb-run -a -s "-screen 0 2100x1000x24" \
        "$build/tests/gui/tst_addhost_lab" >/dev/null
fi
ls -l "$out"/*.png
