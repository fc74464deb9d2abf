#!/bin/sh
# Photographs the gallery of the six seed widgets for the README, into this folder (Examples/gallery):
# gallery-light.png, gallery-dark.png, gallery-phone-light.png and gallery-phone-dark.png.
#
# The seeds run together with the plugin example's stages against their recorded APIs
# (Tests/Fixtures/seeds/), at the fixed clock of its tests; headless Chromium takes the pictures, light
# and dark, 1280 and 390 pixels wide. Needs chromium (Debian: apt-get install chromium).
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
command -v chromium >/dev/null || { echo "chromium is not installed; on Debian: apt-get install chromium" >&2; exit 1; }
cd Examples/WidgetdPlugins
swift build --build-tests
WIDGETD_SCREENSHOTS="$root/Examples/gallery" swift test --skip-build --filter SeedGalleryTests
ls -l "$root"/Examples/gallery/gallery-*.png
