#!/bin/sh
# Builds and tests the example plugin package. Run from anywhere; the build folder is the package's own .build.
set -eu
cd "$(dirname "$0")"
swift build
swift test
