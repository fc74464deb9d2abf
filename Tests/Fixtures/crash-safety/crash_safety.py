#!/usr/bin/env python3
"""Crash safety: kill the daemon at random moments while a reader parses every snapshot.

Usage: python3 crash_safety.py PATH-TO-widgetd [--kills N] [--seed S]

It writes 20 widgets refreshing every second from local files into a temporary folder, then N times:
starts `widgetd run`, waits a random 50-400 ms, and kills it with SIGKILL. Meanwhile a reader thread
parses every JSON file in the output folder in a loop. It reports:

  torn reads        files the reader found incomplete or unparsable (must be 0)
  invalid files     files that do not parse after a kill, before the next start (must be 0)
  leftover temps    temporary files a killed daemon left that are still there once the next daemon
                    has prepared the folder (must be 0)
  state journal     whole lines of OUT/.state/_states.jsonl that do not parse after a kill (must be
                    0), and lines a kill cut short still there when the next daemon prints its first
                    line (must be 0: it cuts them off while preparing the folder)

Leftovers are counted without racing the new daemon's own writes: the temporary files in the folder
are listed right after a kill, while no daemon runs, and the check is whether any of those names
survives until the restarted daemon prints its first line (which it does after preparing the folder
and before it writes anything). Temporary names are unique, so a write the new daemon has under way
is never taken for a leftover, however busy the machine is.

and exits 1 when any is not 0. Standard library only.
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time


def write_definitions(folder, count):
    data = os.path.join(folder, "data")
    os.makedirs(data, exist_ok=True)
    items = [{"id": i, "title": "Item %d with some text to make the file longer" % i, "price": i * 1.25}
             for i in range(200)]
    with open(os.path.join(data, "items.json"), "w") as f:
        json.dump({"items": items}, f)
    for n in range(count):
        with open(os.path.join(folder, "w%02d.json" % n), "w") as f:
            json.dump({
                "source": {"path": "data/items.json"},
                "transforms": [{"type": "select", "path": "$.items[*]"}, {"type": "limit", "count": 50 + n}],
                "schedule": {"every": "1s", "allowFrequent": True, "maxPerDay": 100000},
            }, f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("widgetd")
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    root = tempfile.mkdtemp(prefix="widgetd-crash-")
    config = os.path.join(root, "widgets.d")
    out = os.path.join(root, "out")
    os.makedirs(config)
    write_definitions(config, 20)

    stop = threading.Event()
    counts = {"reads": 0, "torn": 0}
    torn_examples = []

    def reader():
        while not stop.is_set():
            try:
                names = os.listdir(out)
            except FileNotFoundError:
                continue
            for name in names:
                if not name.endswith(".json") or name.startswith("."):
                    continue
                path = os.path.join(out, name)
                try:
                    with open(path, "rb") as f:
                        raw = f.read()
                except FileNotFoundError:
                    continue
                counts["reads"] += 1
                try:
                    json.loads(raw)
                except ValueError:
                    counts["torn"] += 1
                    if len(torn_examples) < 3:
                        torn_examples.append((name, len(raw)))

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()

    def temporary_files():
        found = set()
        for folder in (out, os.path.join(out, ".state")):
            if os.path.isdir(folder):
                found.update(os.path.join(folder, n) for n in os.listdir(folder) if ".tmp-" in n)
        return found

    journal = os.path.join(out, ".state", "_states.jsonl")

    def journal_lines():
        """The journal's whole lines that do not parse, and whether its end is a line cut short."""
        try:
            with open(journal, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            return 0, False
        *whole, tail = raw.split(b"\n")
        bad = 0
        for line in whole:
            try:
                entry = json.loads(line)
                if not isinstance(entry.get("id"), str) or not isinstance(entry.get("state"), dict):
                    bad += 1
            except ValueError:
                bad += 1
        return bad, tail != b""

    invalid_after_kill = 0
    invalid_journal_lines = 0
    cut_lines_left = 0
    cut_lines = 0
    leftovers = 0
    left_by_kills = 0
    started = 0
    left_behind = set()
    for kill in range(args.kills + 1):
        process = subprocess.Popen([args.widgetd, "run", "--config", config, "--out", out],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # The first line comes once the daemon holds its lock and has prepared the folder, before
        # its first write: by then every temporary file the last kill left must be gone.
        line = process.stderr.readline()
        if line:
            started += 1
        leftovers += sum(1 for path in left_behind if os.path.exists(path))
        # By its first line the daemon has also cut off a journal line the kill left unfinished.
        if journal_lines()[1]:
            cut_lines_left += 1
        if kill == args.kills:
            # The last start only checks what the last kill left; it stops cleanly.
            process.send_signal(signal.SIGTERM)
            process.wait()
            break
        time.sleep(rng.uniform(0.05, 0.4))
        process.send_signal(signal.SIGKILL)
        process.wait()
        left_behind = temporary_files()
        left_by_kills += len(left_behind)
        bad, cut = journal_lines()
        invalid_journal_lines += bad
        cut_lines += 1 if cut else 0
        for folder in (out, os.path.join(out, ".state")):
            if not os.path.isdir(folder):
                continue
            for name in os.listdir(folder):
                if not name.endswith(".json") or name.startswith("."):
                    continue
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        json.loads(f.read())
                except ValueError:
                    invalid_after_kill += 1

    stop.set()
    thread.join()
    snapshots = len([n for n in os.listdir(out) if n.endswith(".json") and n != "index.json"])
    print("crash safety: %d kills, %d snapshot files, %d reads" % (args.kills, snapshots, counts["reads"]))
    print("  torn reads:     %d" % counts["torn"])
    print("  invalid files:  %d" % invalid_after_kill)
    print("  leftover temps: %d (of %d temporary files the kills left)" % (leftovers, left_by_kills))
    print("  state journal:  %d invalid lines, %d cut lines left after a start (of %d the kills left)"
          % (invalid_journal_lines, cut_lines_left, cut_lines))
    if torn_examples:
        print("  torn examples:", torn_examples)
    if started != args.kills + 1:
        print("crash safety: the daemon printed no first line in %d of %d starts" % (args.kills + 1 - started, args.kills + 1))
        return 1
    if counts["reads"] == 0 or snapshots == 0:
        print("crash safety: the daemon wrote nothing; the check proves nothing")
        return 1
    return 1 if counts["torn"] or invalid_after_kill or leftovers or invalid_journal_lines or cut_lines_left else 0


if __name__ == "__main__":
    sys.exit(main())
