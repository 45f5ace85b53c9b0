#!/usr/bin/env bash
# Everything from nothing: install what is missing, build, bring up the lab, run every test through
# ctest, and take the lab down again — also when something fails.
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
cd "$SRC_DIR"

t0=$SECONDS
step() { printf '\n=== %s (%ss so far)\n' "$*" "$((SECONDS - t0))"; }

# ThreadSanitizer (issue 14, item 7): a separate build (build-tsan) of core and the threaded tests —
# the bounded executor, the host watchdog, the SQLite store contract, launch/rollback/restart/
# terminate/policies over simulated hosts (tst_sessionlifecycle) and the etcd store's backlog —
# and the number of TSan reports, which must be 0. The default run builds it in the background
# (nice 19) while the lab tests run and runs it after them; CLUSTERDECK_TSAN=0 skips it.
# `test.sh --tsan` runs only that, against a lab of its own (TSAN_TESTS adds e.g. tst_provisioner).
TSAN_BUILD_DIR=${TSAN_BUILD_DIR:-$SRC_DIR/build-tsan}
tsan_tests=${TSAN_TESTS:-tst_boundedexecutor|tst_hostwatchdog|tst_storecontract_sqlite|tst_sessionlifecycle|tst_etcdstorebacklog}
tsan_build() {
    local launcher=()
    if command -v ccache >/dev/null 2>&1; then
        export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SRC_DIR} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    cmake -S "$SRC_DIR" -B "$TSAN_BUILD_DIR" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
        -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
        -DCLUSTERDECK_WERROR=OFF >/dev/null
    # The executables behind the test names (tst_storecontract_sqlite runs tst_storecontract).
    local targets
    targets=$(tr '|' '\n' <<<"$tsan_tests" | sed 's/^tst_storecontract_sqlite$/tst_storecontract/' | sort -u)
    # shellcheck disable=SC2086
    cmake --build "$TSAN_BUILD_DIR" -j "${JOBS:-2}" --target clusterdeckctl $targets
}
tsan_run() {
    local logs=$TSAN_BUILD_DIR/tsan-logs rc=0 reports
    rm -rf "$logs" && mkdir -p "$logs"
    step "ctest (ThreadSanitizer): $tsan_tests"
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 die_after_fork=0 suppressions=$SRC_DIR/tests/tsan.supp log_path=$logs/tsan" \
        ctest --test-dir "$TSAN_BUILD_DIR" --output-on-failure --timeout 1200 -R "^($tsan_tests)\$" "$@" ||
        rc=$?
    # The canary: a race on purpose must still be reported under these options.
    local canary=$TSAN_BUILD_DIR/tsan_canary canary_reports
    c++ -std=c++23 -g -O1 -fsanitize=thread -fPIC "$SRC_DIR/tests/tsan_canary.cpp" -o "$canary" \
        $(pkg-config --cflags --libs Qt6Core)
    TSAN_OPTIONS="halt_on_error=0 suppressions=$SRC_DIR/tests/tsan.supp log_path=$logs/canary" \
        "$canary" || true
    canary_reports=$(cat "$logs"/canary.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
    if ((canary_reports == 0)); then
        echo "error: ThreadSanitizer did not report the canary's race: the suppressions hide too much" >&2
        rc=1
    fi
    reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
    printf '\nThreadSanitizer: %s report(s) over %s; the canary race: %s report(s) (logs in %s)\n' \
        "$reports" "$tsan_tests" "$canary_reports" "$logs"
    if ((reports > 0)); then
        cat "$logs"/tsan.* | grep -A12 '^WARNING: ThreadSanitizer' | head -200
        rc=1
    fi
    return $rc
}

if [[ ${1:-} == --tsan ]]; then
    shift
    step "build (ThreadSanitizer) in $TSAN_BUILD_DIR"
    tsan_build
    trap './scripts/lab.sh down || true' EXIT
    if [[ -z ${CLUSTERDECK_LAB_HOSTS:-} ]]; then
        ./scripts/lab.sh up --hosts "${LAB_HOSTS:-3}"
        eval "$(./scripts/lab.sh env)"
    else
        trap - EXIT # a lab the caller brought up stays up
    fi
    rc=0
    tsan_run "$@" || rc=$?
    exit $rc
fi

step "setup"
./scripts/setup.sh
t_setup=$((SECONDS - t0))

step "build"
t=$SECONDS
./scripts/build.sh
t_build=$((SECONDS - t))

# Independent labs (scripts/lab.sh), ids CLUSTERDECK_LAB_ID (default 0) and the next LABS-1 (so a
# development lab with another id stays untouched): ctest runs a lab test on each at once
# (scripts/on-lab.sh). The first one's environment is this script's, for the ThreadSanitizer run.
labs=${LABS:-2}
first_lab=${CLUSTERDECK_LAB_ID:-0}
if ! [[ $labs =~ ^[1-9]$ && $first_lab =~ ^[0-9]$ ]] || ((first_lab + labs > 10)); then
    echo "test.sh: error: LABS (1-9) labs from CLUSTERDECK_LAB_ID (0-9) must stay within ids 0-9" >&2
    exit 2
fi
lab_down() {
    step "lab down"
    local id
    for ((id = first_lab; id < first_lab + labs; ++id)); do
        CLUSTERDECK_LAB_ID=$id ./scripts/lab.sh down || true
    done
}
trap lab_down EXIT

step "lab up ($labs labs)"
t=$SECONDS
slots=()
for ((id = first_lab; id < first_lab + labs; ++id)); do
    CLUSTERDECK_LAB_ID=$id ./scripts/lab.sh up --hosts "${LAB_HOSTS:-3}" --etcd-members 3
    slots+=("{\"id\": \"$id\", \"slots\": 1}")
done
spec=$(IFS=,; echo "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"labs\": [${slots[*]}]}]}")
mkdir -p "$BUILD_DIR"
echo "$spec" >"$BUILD_DIR/labs.json"
t_lab=$((SECONDS - t))
eval "$(CLUSTERDECK_LAB_ID=$first_lab ./scripts/lab.sh env)"

tsan_pid=
if [[ ${CLUSTERDECK_TSAN:-1} != 0 ]]; then
    step "build (ThreadSanitizer, in the background) in $TSAN_BUILD_DIR"
    # Niced before it starts anything, so the lab tests keep the CPU they ask for.
    (renice -n 19 -p "$BASHPID" >/dev/null && tsan_build >"$BUILD_DIR/tsan-build.log" 2>&1) &
    tsan_pid=$!
fi

step "ctest"
t=$SECONDS
rc=0
# One lab test per lab at once, the unit and offscreen GUI tests (niced) beside them; benchmarks,
# chaos and the fuzzer alone (tests/CMakeLists.txt, clusterdeck_schedule_tests).
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 600 -j "${CTEST_JOBS:-$((labs + 1))}" \
    --resource-spec-file "$BUILD_DIR/labs.json" "$@" || rc=$?
t_ctest=$((SECONDS - t))
# What failed, in a few lines per test, printed again at the very end (after the lab is down)
# where a reader of a long or truncated log looks first: QtTest's FAIL!/Loc: lines, the chaos
# suite's violations and a timeout before any other line that merely says "error:" (a test's
# debug output has many of those, and they must not crowd out the assertion that failed).
failure_summary() {
    awk '/^[0-9]+\/[0-9]+ Test: / { name = $3; n = 0; m = 0; main = ""; more = ""; t = 0; next }
         /^<end of output>|^Test time =|^-+$/ { next }
         /^Test Failed/ {
             printf "  %s\n%s%s", name, more, main
             # Nothing recognised (a script or a crash): its last lines say why.
             if (main == "" && more == "")
                 for (i = (t > 6 ? t - 6 : 0); i < t; ++i) printf "    %s\n", tail[i % 6]
             main = ""; more = ""; next }
         { tail[t++ % 6] = substr($0, 1, 300) }
         /FAIL!|Loc: \[|^ +(Actual|Expected) +\(|VIOLATION|Timeout|run-fuzz: FAIL|SUMMARY: / {
             if (n++ < 10) main = main "    " substr($0, 1, 300) "\n"; next }
         /violation|leftover|error:|ERROR:/ { if (m++ < 3) more = more "    " substr($0, 1, 200) "\n" }' \
        "$BUILD_DIR/Testing/Temporary/LastTest.log" 2>/dev/null || true
}
# What the lab's daemons complained of (before the lab goes down with their logs): a Docker-side
# cause of a failure, such as an endpoint dockerd could not release, shows here.
daemon_complaints() {
    local id log run
    for ((id = first_lab; id < first_lab + labs; ++id)); do
        run=$(CLUSTERDECK_LAB_ID=$id ./scripts/lab.sh env |
            sed -n "s|^export CLUSTERDECK_LAB_CERT_PATH='\(.*\)/pki'$|\1|p")
        for log in "$run"/h*/dockerd.log; do
            [[ -f $log ]] || continue
            grep -E 'level=(error|warning|fatal)' "$log" |
                grep -vE 'shim disconnected|cleanup warnings|kernel parameter|devmapper|blkio|config version|default vlan' |
                tail -6 | cut -c1-300 | sed "s|^|  lab $id $(basename "$(dirname "$log")"): |"
        done
    done
}
summary=
complaints=
if [[ $rc != 0 ]]; then
    summary=$(failure_summary)
    complaints=$(daemon_complaints)
fi
# The lab goes down on exit; what failed is printed after that, as the log's last lines.
report_failures() {
    if [[ -n $complaints ]]; then
        printf "\n=== the lab dockerds' last errors and warnings\n%s\n" "$complaints"
    fi
    if [[ -n $summary ]]; then
        printf '\n=== what failed in ctest (full output above and in %s)\n%s\n' \
            "$BUILD_DIR/Testing/Temporary/LastTest.log" "$summary"
    fi
}
trap 'lab_down; report_failures' EXIT

t_tsan=0
if [[ -n $tsan_pid ]]; then
    t=$SECONDS
    if wait "$tsan_pid"; then
        tsan_run || rc=1
    else
        tail -40 "$BUILD_DIR/tsan-build.log"
        echo "error: the ThreadSanitizer build failed (log: $BUILD_DIR/tsan-build.log)" >&2
        rc=1
    fi
    t_tsan=$((SECONDS - t))
fi

printf '\ntimings: setup %ss, build %ss, lab up %ss, ctest %ss, tsan after ctest %ss, total %ss\n' \
    "$t_setup" "$t_build" "$t_lab" "$t_ctest" "$t_tsan" "$((SECONDS - t0))"
exit $rc
