#!/usr/bin/env bash
# The first integration check of the original design: two containers on two different lab hosts,
# one attachable overlay network, each pings the other by hostname. Exits 0 only if both
# directions worked; removes what it made in any case.
set -uo pipefail

SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z ${CLUSTERDECK_LAB_H1_DOCKER:-} ]]; then
    eval "$("$SRC_DIR/scripts/lab.sh" env)" || { echo "check-overlay: the lab is not up" >&2; exit 1; }
fi
[[ -n ${CLUSTERDECK_LAB_H2_DOCKER:-} ]] || { echo "check-overlay: needs at least 2 lab hosts" >&2; exit 1; }

run_id=$(cat /proc/sys/kernel/random/uuid)
short=${run_id%%-*}
net=cd-overlay-check-$short
label="io.clusterdeck.session=$run_id"
image=${CLUSTERDECK_LAB_IMAGE:-clusterdeck/lab:latest}
h1() { docker -H "$CLUSTERDECK_LAB_H1_DOCKER" "$@"; }
h2() { docker -H "$CLUSTERDECK_LAB_H2_DOCKER" "$@"; }

cleanup() {
    h1 rm -f "cd-$short-alpha" >/dev/null 2>&1
    h2 rm -f "cd-$short-beta" >/dev/null 2>&1
    h1 network rm "$net" >/dev/null 2>&1
    # The worker keeps its copy of the network until its last container left; it goes by itself.
}
trap cleanup EXIT

echo "check-overlay: creating attachable overlay network $net on h1 (swarm manager)"
h1 network create --driver overlay --attachable --label "$label" "$net" >/dev/null || exit 1

start() { # host-fn name hostname
    local fn=$1 name=$2 host=$3
    $fn run -d --name "$name" --hostname "$host" --network "$net" --network-alias "$host" \
        --label "$label" --label "io.clusterdeck.hostname=$host" "$image" sleep 300 >/dev/null
}
start h1 "cd-$short-alpha" alpha || exit 1
start h2 "cd-$short-beta" beta || exit 1
echo "check-overlay: alpha on h1 ($CLUSTERDECK_LAB_H1_ADDR), beta on h2 ($CLUSTERDECK_LAB_H2_ADDR)"

ping_from() { # host-fn container target
    local fn=$1 container=$2 target=$3 out
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        if out=$($fn exec "$container" ping -c 2 -W 2 "$target" 2>&1); then
            echo "$out" | sed "s/^/  [$container -> $target] /"
            return 0
        fi
        sleep 1 # the overlay's peer table can lag the second container's start by a moment
    done
    echo "$out" | sed "s/^/  [$container -> $target] /"
    return 1
}

rc=0
if ping_from h1 "cd-$short-alpha" beta; then
    echo "check-overlay: alpha (h1) -> beta (h2): ok"
else
    echo "check-overlay: alpha (h1) -> beta (h2): FAILED"
    rc=1
fi
if ping_from h2 "cd-$short-beta" alpha; then
    echo "check-overlay: beta (h2) -> alpha (h1): ok"
else
    echo "check-overlay: beta (h2) -> alpha (h1): FAILED"
    rc=1
fi
[[ $rc -eq 0 ]] && echo "check-overlay: PASS" || echo "check-overlay: FAIL"
exit $rc
