#!/usr/bin/env bash
# Everything from nothing: install what is missing, build, bring up the lab, run every test through
# ctest, and take the lab down again — also when something fails.
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
cd "$SRC_DIR"

t0=$SECONDS
step() { printf '\n=== %s (%ss so far)\n' "$*" "$((SECONDS - t0))"; }

# --tsan: a separate ThreadSanitizer build (build-tsan) of core and the threaded tests — the
# bounded executor, provisioner, store and controller — run against a lab of their own; prints
# the number of TSan reports. Not part of the default run (CI time).
if [[ ${1:-} == --tsan ]]; then
    shift
    export BUILD_DIR=${TSAN_BUILD_DIR:-$SRC_DIR/build-tsan}
    tsan_tests=${TSAN_TESTS:-tst_boundedexecutor|tst_etcdstorebacklog|tst_provisioner|tst_storecontract|tst_controller}
    step "build (ThreadSanitizer) in $BUILD_DIR"
    launcher=()
    if command -v ccache >/dev/null 2>&1; then
        export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SRC_DIR} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    cmake -S "$SRC_DIR" -B "$BUILD_DIR" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
        -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
        -DCLUSTERDECK_WERROR=OFF >/dev/null
    # shellcheck disable=SC2046
    cmake --build "$BUILD_DIR" -j "${JOBS:-2}" --target clusterdeckctl \
        $(tr '|' ' ' <<<"$tsan_tests")
    trap './scripts/lab.sh down || true' EXIT
    if [[ -z ${CLUSTERDECK_LAB_HOSTS:-} ]]; then
        ./scripts/lab.sh up --hosts "${LAB_HOSTS:-3}"
        eval "$(./scripts/lab.sh env)"
    else
        trap - EXIT # a lab the caller brought up stays up
    fi
    logs=$BUILD_DIR/tsan-logs
    rm -rf "$logs" && mkdir -p "$logs"
    step "ctest (ThreadSanitizer): $tsan_tests"
    rc=0
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$logs/tsan" \
        ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 1800 -R "^($tsan_tests)\$" "$@" ||
        rc=$?
    reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
    printf '\nThreadSanitizer: %s report(s) (logs in %s)\n' "$reports" "$logs"
    if ((reports > 0)); then
        cat "$logs"/tsan.* | grep -A12 '^WARNING: ThreadSanitizer' | head -200
        rc=1
    fi
    exit $rc
fi

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
