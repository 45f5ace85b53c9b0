#!/usr/bin/env bash
# Builds the Debian package (CPack) into ${BUILD_DIR:-build}; prints its path on the last line.
set -euo pipefail
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
"$SRC_DIR/scripts/build.sh" >/dev/null
(cd "$BUILD_DIR" && cpack -G DEB >/dev/null)
ls -t "$BUILD_DIR"/clusterdeck_*.deb | head -1
