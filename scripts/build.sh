#!/usr/bin/env bash
# Configures and builds ClusterDeck into ${BUILD_DIR:-build} (2 jobs: the machines have 2 cores).
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
# ccache, when installed, lets several checkouts of the tree (worktrees) share compiled objects;
# base_dir makes the cache keys independent of where the checkout lives.
launcher=()
if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$SRC_DIR} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$SRC_DIR" -B "$BUILD_DIR" -G Ninja "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
    -DCLUSTERDECK_WERROR="${CLUSTERDECK_WERROR:-ON}" >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-2}"
