#!/bin/sh
# Photographs the gallery of the six seed widgets for the README and the seeds' own READMEs:
# - into this folder (Examples/gallery), the whole gallery at each family, light and dark:
#   small-light.png, small-dark.png, medium-…, large-…, extraLarge-…, accessoryCircular-…,
#   accessoryRectangular-… and accessoryInline-light.png / -dark.png;
# - into each seed's screenshots/ folder, its own card (?widget=ID) at each family it offers, light
#   and dark: Examples/seeds/003-joke-of-the-day/screenshots/small-light.png, …;
# - Bitpal's large card with a day of history drawn as a sparkline (BitpalFamiliesTests):
#   Examples/seeds/004-bitpal-portfolio/screenshots/large-history-light.png and -dark.png.
#
# The seeds run together with the plugin example's stages against their recorded APIs
# (Tests/Fixtures/seeds/), at the fixed clock of its tests; headless Chromium takes the pictures.
# Needs chromium (Debian: apt-get install chromium).
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
command -v chromium >/dev/null || { echo "chromium is not installed; on Debian: apt-get install chromium" >&2; exit 1; }
cd Examples/WidgetdPlugins
swift build --build-tests
WIDGETD_SCREENSHOTS="$root/Examples/gallery" swift test --skip-build --filter 'SeedGalleryTests|BitpalFamiliesTests'
ls -l "$root"/Examples/gallery/*.png "$root"/Examples/seeds/*/screenshots/*.png
