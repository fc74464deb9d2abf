#!/usr/bin/env python3
"""Prints what Python's feedparser reads from every feed file in a folder, as JSON.

Usage: python3 feedparser_dump.py [FOLDER]   (default: this script's folder)

Output: {"<file name>": [{"title", "link", "id", "published", "author", "categories"}, ...], ...}
for every *.xml and *.json file, items in document order; null for a JSON Feed file when the
installed feedparser does not read JSON Feed (feedparser 6.0 does not). `published` is the item's publication
instant in UTC as YYYY-MM-DDTHH:MM:SSZ (feedparser's published_parsed, falling back to
updated_parsed the way feedparser itself does), or null. Missing values are null; categories are
the terms of the item's tags.

Exit status 3 (and a message on stderr) when feedparser is not installed: `pip install feedparser`.
"""

import json
import os
import sys
import time

try:
    import feedparser
except ImportError:
    sys.stderr.write("feedparser is not installed; install it with: pip install feedparser\n")
    sys.exit(3)


def instant(parsed):
    if not parsed:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", parsed)


def item_fields(entry):
    return {
        "title": entry.get("title"),
        "link": entry.get("link"),
        "id": entry.get("id"),
        "published": instant(entry.get("published_parsed")),
        "author": entry.get("author"),
        "categories": [tag.get("term") for tag in entry.get("tags", []) if tag.get("term")],
    }


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    result = {}
    for name in sorted(os.listdir(folder)):
        if not (name.endswith(".xml") or name.endswith(".json")):
            continue
        with open(os.path.join(folder, name), "rb") as handle:
            parsed = feedparser.parse(handle.read())
        if name.endswith(".json") and not parsed.entries:
            result[name] = None  # This feedparser version does not read JSON Feed.
            continue
        result[name] = [item_fields(entry) for entry in parsed.entries]
    json.dump(result, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
