#!/bin/sh
# Builds, tests and runs this package: the "Writing a stage" article, compiled as a package of its own
# (Tests/WidgetCommandsTests/ReadmeStageExampleTests.swift checks that the article shows these files exactly).
# Run from anywhere; the build folder is the package's own .build.
set -eu
cd "$(dirname "$0")"
swift build
swift test
out=$(mktemp -d "${TMPDIR:-/tmp}/widgetd-round.XXXXXX")
trap 'rm -rf "$out"' EXIT
swift run widgetd-round validate --config widgets.d
swift run widgetd-round run --config widgets.d --out "$out" --once
# The definition's list, rounded to two places by the stage: [19.999, 4.5, 3.14159, "sold out"].
content=$(tr -d ' \n' < "$out/prices.json" | sed 's/.*"content":\(\[[^]]*\]\).*/\1/')
if [ "$content" != '[20,4.5,3.14,"soldout"]' ]; then
    echo "the round stage gave $content, not [20,4.5,3.14,\"soldout\"]"
    exit 1
fi
echo "the round stage ran: $content"
