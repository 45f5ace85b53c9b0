#!/usr/bin/env bash
# Everything from nothing: install what is missing, build, bring up the lab, run every test through
# ctest, and take the lab down again — also when something fails.
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
cd "$SRC_DIR"

t0=$SECONDS
step() { printf '\n=== %s (%ss so far)\n' "$*" "$((SECONDS - t0))"; }

step "setup"
./scripts/setup.sh
t_setup=$((SECONDS - t0))

step "build"
t=$SECONDS
./scripts/build.sh
t_build=$((SECONDS - t))

lab_down() {
    step "lab down"
    ./scripts/lab.sh down || true
}
trap lab_down EXIT

step "lab up"
t=$SECONDS
./scripts/lab.sh up --hosts "${LAB_HOSTS:-3}" --etcd-members 3
t_lab=$((SECONDS - t))
eval "$(./scripts/lab.sh env)"

step "ctest"
t=$SECONDS
rc=0
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 600 "$@" || rc=$?
t_ctest=$((SECONDS - t))

printf '\ntimings: setup %ss, build %ss, lab up %ss, ctest %ss, total %ss\n' \
    "$t_setup" "$t_build" "$t_lab" "$t_ctest" "$((SECONDS - t0))"
exit $rc
