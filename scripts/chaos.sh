#!/usr/bin/env bash
# The chaos suite: randomized faults against the lab, invariants checked after every trial.
#
#   scripts/chaos.sh [--trials N] [--kill-trials N] [--faults a,b,…] [--seed N] [--resync S]
#                    [--driver vxlan|swarm] [--binary PATH]
#
# Faults: kill9-launch, kill9-rm, kill9-restart, kill9-controller (kill -9 at random moments),
# sigstop-host (SIGSTOP/SIGCONT of a random host's dockerd during a launch), netem (200 ms more
# round trip and 5 % loss on one host's link during a launch), etcd-leader (kill of the etcd
# leader during a launch on an etcd store), sqlite-full (the SQLite store's tmpfs fills up during a
# launch), sigstop-leader (the leading controller SIGSTOPped in the middle of a whole-session
# restart on an etcd store, a standby finishes it, the old one resumed must change nothing),
# host-restart (a host's dockerd stopped for 2-12 s and started under a session whose policy
# restarts it: RUNNING again within 90 s), console-and-cli (an offscreen console leads the SQLite
# store while CLI processes launch, list, kill a kernel and remove; another process must see the
# console's restart, and PRAGMA integrity_check is ok). --trials is per fault; --kill-trials (default: --trials) for the four kill -9 faults.
# Prints a table: fault, trials, invariant violations, leftovers; exit status 1 when any trial
# broke an invariant or left something behind.
#
# Uses the lab whose environment is exported (eval "$(scripts/lab.sh env)") when it answers;
# otherwise brings one up (CLUSTERDECK_LAB_ID, default 0; 3 hosts, 3 etcd members) and takes it
# down again at the end. Builds the suite when no --binary is given. Needs root (namespaces,
# iptables, tmpfs).
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
binary=""
args=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --binary=*) binary=${1#*=}; shift ;;
    *) args+=("$1"); shift ;;
    esac
done

for tool in ip iptables tc dd; do
    command -v "$tool" >/dev/null || { echo "chaos: error: $tool is missing: run scripts/setup.sh" >&2; exit 1; }
done

if [[ -z $binary ]]; then
    "$SRC_DIR/scripts/build.sh" >/dev/null
    binary=$BUILD_DIR/tests/chaos/clusterdeck_chaos
fi

lab=("$SRC_DIR/scripts/lab.sh")
brought_up=0
if [[ -n ${CLUSTERDECK_LAB_ID:-} ]]; then export CLUSTERDECK_LAB_ID; fi
if ! "${lab[@]}" status >/dev/null 2>&1 || [[ $("${lab[@]}" env | grep -c "_DOCKER=") -lt 3 ]] ||
    [[ $("${lab[@]}" env | grep ETCD_MEMBERS | tr ',' '\n' | wc -l) -lt 3 ]]; then
    echo "chaos: no lab with 3 hosts and 3 etcd members answers: bringing one up" >&2
    "${lab[@]}" up --hosts 3 --etcd-members 3
    brought_up=1
fi
down() { [[ $brought_up -eq 1 ]] && "${lab[@]}" down || true; }
trap down EXIT
eval "$("${lab[@]}" env)"
export CLUSTERDECK_SOURCE_DIR=$SRC_DIR
"$binary" "${args[@]}"
