#!/usr/bin/env python3
"""Splits a joke's text into setup and punchline, for widgetd's `command` transform.

Reads one JSON value on standard input: a joke object with a "text" field, or a list of them. Prints the
same value with "setup" and "punchline" added to each joke. The text is cut at the first of these
delimiters that leaves a punchline: a blank line, " - ", "? " or "! " (the "?" or "!" stays with the
setup). Without one, the whole text is the setup and the punchline is empty.

    $ echo '{"text": "Why did the chicken cross the road? To get to the other side."}' | python3 split_joke.py
    {"text": "...", "setup": "Why did the chicken cross the road?", "punchline": "To get to the other side."}

Python 3 standard library only. Exits 1 with a message on standard error when the input is not JSON or
a joke has no text.
"""

import json
import sys

DELIMITERS = ["\n\n", " - ", "? ", "! "]


def split(text):
    for delimiter in DELIMITERS:
        index = text.find(delimiter)
        if index < 0:
            continue
        setup = text[:index]
        if delimiter[0] in "?!":
            setup += delimiter[0]
        punchline = text[index + len(delimiter):].strip()
        if punchline:
            return setup.strip(), punchline
    return text.strip(), ""


def add_parts(joke):
    if not isinstance(joke, dict) or not isinstance(joke.get("text"), str):
        raise ValueError("each joke must be an object with a \"text\" string")
    setup, punchline = split(joke["text"])
    result = dict(joke)
    result["setup"] = setup
    result["punchline"] = punchline
    return result


def main():
    try:
        value = json.load(sys.stdin)
        result = [add_parts(joke) for joke in value] if isinstance(value, list) else add_parts(value)
    except ValueError as error:
        sys.stderr.write("split_joke.py: %s\n" % error)
        return 1
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
