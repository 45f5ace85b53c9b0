#!/usr/bin/env bash
# Configures and builds ClusterDeck into ${BUILD_DIR:-build} (2 jobs: the machines have 2 cores).
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
cmake -S "$SRC_DIR" -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
    -DCLUSTERDECK_WERROR="${CLUSTERDECK_WERROR:-ON}" >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-2}"
