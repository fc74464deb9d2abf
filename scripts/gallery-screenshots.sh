#!/bin/sh
# Photographs the gallery of the six seed widgets for the README: docs/gallery-light.png,
# docs/gallery-dark.png, docs/gallery-phone-light.png and docs/gallery-phone-dark.png.
#
# The seeds run together with the plugin example's stages against their recorded APIs
# (Tests/Fixtures/seeds/), at the fixed clock of its tests; headless Chromium takes the pictures, light
# and dark, 1280 and 390 pixels wide. Needs chromium (Debian: apt-get install chromium).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
command -v chromium >/dev/null || { echo "chromium is not installed; on Debian: apt-get install chromium" >&2; exit 1; }
cd Examples/WidgetdPlugins
swift build --build-tests
WIDGETD_SCREENSHOTS="$root/docs" swift test --skip-build --filter SeedGalleryTests
ls -l "$root"/docs/gallery-*.png
