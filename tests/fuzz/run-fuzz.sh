#!/usr/bin/env bash
# Builds the template-loader fuzz target with clang's libFuzzer (+ AddressSanitizer, which also
# reports leaks) and runs it for a bounded time from the committed seed corpus.
# usage: run-fuzz.sh BUILD_DIR [SECONDS]
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS]}/fuzz
SECONDS_BUDGET=${2:-60}
CXX=${FUZZ_CXX:-clang++-16}
command -v "$CXX" >/dev/null || { echo "run-fuzz: $CXX not found (scripts/setup.sh installs clang)" >&2; exit 1; }
mkdir -p "$OUT/corpus" "$OUT/artifacts"

sources=("$SRC_DIR"/core/template/*.cpp "$SRC_DIR/core/common/error.cpp" "$SRC_DIR/core/common/logging.cpp"
         "$SRC_DIR/core/common/clustermode.cpp")
bin=$OUT/fuzz_templateloader
# Rebuild only when a source changed.
if [[ ! -x $bin ]] || [[ -n $(find "${sources[@]}" "$SRC_DIR/core/template" "$SRC_DIR/tests/fuzz/fuzz_templateloader.cpp" -newer "$bin" 2>/dev/null) ]]; then
    echo "run-fuzz: building $bin with $CXX"
    # clang 16 implements the concepts libstdc++'s <expected> needs but reports an older
    # __cpp_concepts value; declaring the C++20 value makes the header available.
    "$CXX" -std=c++2b -D__cpp_concepts=202002L -Wno-builtin-macro-redefined -Wno-macro-redefined -O1 -g -fPIC \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -DQT_NO_KEYWORDS -DCLUSTERDECK_VERSION='"fuzz"' \
        -I"$SRC_DIR/core" $(pkg-config --cflags Qt6Core yaml-cpp) \
        "$SRC_DIR/tests/fuzz/fuzz_templateloader.cpp" "${sources[@]}" \
        $(pkg-config --libs Qt6Core yaml-cpp) -o "$bin"
fi

# Seeds: the committed corpus plus every sample and test fixture.
cp "$SRC_DIR"/tests/fuzz/corpus/* "$OUT/corpus/" 2>/dev/null || true
for f in "$SRC_DIR"/templates/*.yaml "$SRC_DIR"/templates/tasks/*.yaml "$SRC_DIR"/tests/data/templates/*.yaml; do
    [[ -f $f ]] && cp "$f" "$OUT/corpus/seed-$(basename "$f")"
done

echo "run-fuzz: fuzzing for ${SECONDS_BUDGET}s from $(ls "$OUT/corpus" | wc -l) inputs"
rm -f "$OUT"/artifacts/*
rc=0
# The loader logs every template it reads; 10,000 lines a second would only slow the search.
QT_LOGGING_RULES="clusterdeck.*=false" ASAN_OPTIONS=detect_leaks=1 "$bin" "$OUT/corpus" -max_total_time="$SECONDS_BUDGET" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 \
    >"$OUT/fuzz.log" 2>&1 || rc=$?
grep -E "^#[0-9]+[[:space:]]+(DONE|INITED)|stat::number_of_executed_units|ERROR|SUMMARY|Test unit written" \
    "$OUT/fuzz.log" || true
# libFuzzer exits non-zero on a crash, leak or timeout and writes the input into artifacts/.
if [[ $rc != 0 ]] || compgen -G "$OUT/artifacts/*" >/dev/null; then
    # The sanitizer's report and the input itself, so a CI log alone is enough to reproduce it
    # (base64 -d >repro; run-fuzz's binary repro).
    echo "run-fuzz: the end of libFuzzer's report ($OUT/fuzz.log):" >&2
    grep -vE "^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)" "$OUT/fuzz.log" | tail -40 >&2
    for f in "$OUT"/artifacts/*; do
        [[ -f $f ]] || continue
        echo "run-fuzz: $(basename "$f"), $(stat -c %s "$f") bytes, base64 (first 3 KiB):" >&2
        head -c 3072 "$f" | base64 -w 0 >&2
        echo >&2
    done
    echo "run-fuzz: FAIL: libFuzzer exit code $rc, reproducer(s) in $OUT/artifacts" >&2
    exit 1
fi
echo "run-fuzz: PASS: no crash, leak or hang in ${SECONDS_BUDGET}s"
