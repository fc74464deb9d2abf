#!/usr/bin/env python3
"""Lists the public declarations of the library modules that have no doc comment, and fails when any.

Reads the symbol graphs that `swift build -Xswiftc -emit-symbol-graph` writes. A member that only
fulfils a protocol requirement takes its text from the protocol, as DocC shows it: a requirement of one
of the package's protocols that the member's type conforms to, or of a standard protocol
(`description`, `hash(into:)`, `==`, `init(from:)` …).

Usage: doc-coverage.py SYMBOL_GRAPH_DIR MODULE...
"""
import glob
import json
import os
import sys

# Requirements of the standard library's and Foundation's protocols, by name.
STANDARD_REQUIREMENTS = {
    "description", "debugDescription", "errorDescription", "hash(into:)", "hashValue", "==(_:_:)", "<(_:_:)",
    "init(from:)", "encode(to:)", "rawValue", "init(rawValue:)", "makeIterator()", "next()", "stringValue",
    "intValue", "init(stringValue:)", "init(intValue:)", "init(stringLiteral:)", "init(dictionaryLiteral:)",
    "init(arrayLiteral:)", "init(integerLiteral:)", "init(floatLiteral:)", "init(booleanLiteral:)",
    "init(nilLiteral:)", "init(unicodeScalarLiteral:)", "init(extendedGraphemeClusterLiteral:)",
    "enqueue(_:)", "allCases", "startIndex", "endIndex", "index(after:)", "subscript(_:)", "count",
}


def main() -> int:
    folder, modules = sys.argv[1], set(sys.argv[2:])
    symbols, relationships = {}, []
    for path in glob.glob(os.path.join(folder, "*.symbols.json")):
        graph = json.load(open(path))
        if graph["module"]["name"] not in modules:
            continue
        for symbol in graph["symbols"]:
            symbols[symbol["identifier"]["precise"]] = symbol
        relationships += graph.get("relationships", [])

    parent, conforms, requirements = {}, {}, {}
    for relation in relationships:
        kind, source, target = relation["kind"], relation["source"], relation["target"]
        if kind == "memberOf":
            parent[source] = target
        elif kind == "conformsTo":
            conforms.setdefault(source, set()).add(target)
        elif kind in ("requirementOf", "optionalRequirementOf"):
            name = symbols.get(source, {}).get("names", {}).get("title")
            if name:
                requirements.setdefault(target, set()).add(name)

    def witnesses_a_requirement(identifier, name):
        if name in STANDARD_REQUIREMENTS:
            return True
        owner = parent.get(identifier)
        return any(name in requirements.get(protocol, ()) for protocol in conforms.get(owner, ()))

    missing, total = [], 0
    for identifier, symbol in symbols.items():
        if symbol.get("accessLevel") not in ("public", "open") or "location" not in symbol:
            continue
        components = symbol["pathComponents"]
        # Coding keys are spelled by the options they decode, which are documented.
        if "CodingKeys" in components[:-1] or components[-1] == "CodingKeys":
            continue
        total += 1
        if symbol.get("docComment") or witnesses_a_requirement(identifier, components[-1]):
            continue
        location = symbol["location"]
        file = location["uri"].replace("file://", "")
        file = os.path.relpath(file) if file.startswith(os.getcwd()) else file
        missing.append(f"{file}:{location['position']['line'] + 1}: {'.'.join(components)} has no doc comment")

    for line in sorted(missing):
        print(line)
    print(f"documentation: {total - len(missing)} of {total} public declarations documented, {len(missing)} without")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
