import Foundation

/// HTML as text, in one place: escaping for the Liquid filters (`escape`, `escape_once`, `strip_html`),
/// and for feeds entity decoding and markup stripping.
///
/// Feeds put HTML in places meant for text, escaped once, twice, or raw inside CDATA. These helpers turn
/// it into plain text: `decodeEntities` replaces named (`&eacute;`, `&nbsp;`, `&hellip;` …: HTML 4's full
/// set and HTML5's common additions) and numeric (`&#8217;`, `&#x2019;`) references; `plainText` also
/// removes tags, comments, scripts and styles and collapses whitespace.
///
/// ```swift
/// HTMLText.plainText("<p>Caf&eacute; <b>opens</b>&nbsp;today</p>")   // "Café opens today"
/// ```
public enum HTMLText {
    /// `text` with its character references replaced. Unknown names stay as written.
    public static func decodeEntities(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard contains(UInt8(ascii: "&"), in: bytes) else { return nil }
            return decodeEntities(bytes)
        } ?? text
    }

    /// The UTF-8 `bytes` as a string, character references replaced. Unknown names stay as written.
    package static func decodeEntities(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard contains(UInt8(ascii: "&"), in: bytes) else { return String(decoding: bytes, as: UTF8.self) }
        return withScratch(count: bytes.count) { output in
            _ = output.initialize(fromContentsOf: bytes)
            return 0..<decodeInPlace(output, count: bytes.count)
        }
    }

    /// The string `body` writes into a scratch buffer of `count` bytes (on the stack when small), made
    /// from the part it returns. (`String(decoding:)` checks ASCII eight bytes at a time, where
    /// `String(unsafeUninitializedCapacity:)` validates every byte.)
    private static func withScratch(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Range<Int>) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { scratch in
            let kept = body(scratch)
            return String(decoding: UnsafeBufferPointer(rebasing: scratch[kept]), as: UTF8.self)
        }
    }

    /// Whether `byte` occurs in `bytes` (`memchr`).
    @inline(__always)
    package static func contains(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        return memchr(base, Int32(byte), bytes.count) != nil
    }

    /// Replaces the character references in the first `count` bytes of `buffer`, in place; returns the new
    /// count. A reference is never shorter than the UTF-8 of what it names (`&lt;` is four bytes for one,
    /// `&#x10000;` nine for four), so the text only shrinks and what is read is never overwritten.
    package static func decodeInPlace(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) -> Int {
        guard let base = buffer.baseAddress else { return count }
        let text = UnsafeBufferPointer(rebasing: buffer[..<count])
        /// The position of the next `&` at or after `index`, or `count`.
        func nextAmpersand(from index: Int) -> Int {
            guard index < count, let found = memchr(base + index, Int32(UInt8(ascii: "&")), count - index) else { return count }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        var read = nextAmpersand(from: 0)
        var write = read
        while read < count {
            // `read` is at an `&`.
            if let (scalar, length) = reference(text, at: read) {
                let encoded = UTF8.encode(scalar)!
                assert(encoded.count <= length, "a character reference is shorter than its UTF-8")
                for unit in encoded {
                    base[write] = unit
                    write += 1
                }
                read += length
            } else {
                base[write] = UInt8(ascii: "&")
                write += 1
                read += 1
            }
            let next = nextAmpersand(from: read)
            if next > read {
                if write != read { memmove(base + write, base + read, next - read) }
                write += next - read
                read = next
            }
        }
        return write
    }

    /// The character reference starting at `index` (an `&`), as a scalar and the bytes it spans.
    package static func reference(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int)? {
        let end = buffer.count
        var cursor = index + 1
        guard cursor < end else { return nil }
        if buffer[cursor] == UInt8(ascii: "#") {
            cursor += 1
            var value: UInt32 = 0
            var digits = 0
            let hex = cursor < end && (buffer[cursor] | 0x20) == UInt8(ascii: "x")
            if hex { cursor += 1 }
            while cursor < end, digits < 8 {
                let byte = buffer[cursor]
                if byte >= 0x30 && byte <= 0x39 {
                    value = value * (hex ? 16 : 10) + UInt32(byte - 0x30)
                } else if hex, (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66 {
                    value = value * 16 + UInt32((byte | 0x20) - 0x61 + 10)
                } else {
                    break
                }
                digits += 1
                cursor += 1
            }
            guard digits > 0 else { return nil }
            if cursor < end, buffer[cursor] == UInt8(ascii: ";") { cursor += 1 }
            // Windows-1252 numbers that feeds use for punctuation (&#146; for ’), as browsers read them.
            if (0x80...0x9F).contains(value), let mapped = windows1252[value] { value = mapped }
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            return (value == 0 ? "\u{FFFD}" : scalar, cursor - index)
        }
        let nameStart = cursor
        while cursor < end, cursor - nameStart < 32 {
            let byte = buffer[cursor]
            guard (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte >= 0x30 && byte <= 0x39 else { break }
            cursor += 1
        }
        guard cursor > nameStart, cursor < end, buffer[cursor] == UInt8(ascii: ";") else { return nil }
        guard let value = namedValue(UnsafeBufferPointer(rebasing: buffer[nameStart..<cursor])),
            let scalar = Unicode.Scalar(value)
        else { return nil }
        return (scalar, cursor + 1 - index)
    }

    /// A name of up to 16 ASCII bytes as two big-endian words, so that names order as their packs do.
    private struct PackedName: Comparable {
        var high: UInt64 = 0
        var low: UInt64 = 0

        init?(_ name: UnsafeBufferPointer<UInt8>) {
            let count = name.count
            guard count <= 16 else { return nil }
            var offset = 0
            while offset < count {
                let byte = UInt64(name[offset])
                if offset < 8 {
                    high |= byte << (56 - 8 * offset)
                } else {
                    low |= byte << (56 - 8 * (offset - 8))
                }
                offset += 1
            }
        }

        static func < (a: PackedName, b: PackedName) -> Bool { a.high < b.high || (a.high == b.high && a.low < b.low) }
    }

    /// ``named`` sorted by packed name, for a binary search that neither builds a string nor hashes one.
    private static let packedNames: (names: [PackedName], values: [UInt32]) = {
        let sorted = named.compactMap { name, value in
            var name = name
            return name.withUTF8 { PackedName($0) }.map { ($0, value) }
        }.sorted { $0.0 < $1.0 }
        return (sorted.map(\.0), sorted.map(\.1))
    }()

    /// The code point of the named character reference `name` (without `&` and `;`), if it is one.
    package static func namedValue(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        if name.count == 3, name[0] == UInt8(ascii: "a"), name[1] == UInt8(ascii: "m"), name[2] == UInt8(ascii: "p") {
            return 0x26  // By far the most common.
        }
        guard let key = PackedName(name) else { return nil }
        let table = packedNames
        var low = 0
        var high = table.names.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = table.names[middle]
            if candidate == key { return table.values[middle] }
            if candidate < key { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// `html` as plain text: tags, comments, scripts and styles removed, entities decoded, runs of
    /// whitespace collapsed to one space, trimmed. Block ends (`</p>`, `<br>`) become spaces.
    public static func plainText(_ html: String) -> String {
        var html = html
        return html.withUTF8(plainText)
    }

    /// The UTF-8 `html` as plain text (see ``plainText(_:)-(String)``).
    ///
    /// Markup is stripped into a scratch buffer, entities are decoded in place (after stripping, so a
    /// reference split by a tag is still read), then the ends are trimmed.
    package static func plainText(_ html: UnsafeBufferPointer<UInt8>) -> String {
        guard !html.isEmpty else { return "" }
        return withScratch(count: html.count) { output in
            decodeAndTrimInPlace(output, count: strip(html, into: output))
        }
    }

    /// The UTF-8 `bytes` as a string, character references replaced, then trimmed like
    /// `trimmingWhitespace()`.
    package static func decodedAndTrimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard contains(UInt8(ascii: "&"), in: bytes) else {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[trimmedRange(bytes)]), as: UTF8.self)
        }
        return withScratch(count: bytes.count) { output in
            _ = output.initialize(fromContentsOf: bytes)
            return decodeAndTrimInPlace(output, count: bytes.count)
        }
    }

    /// Decodes the references in the first `count` bytes of `buffer`; returns the part trimming keeps.
    private static func decodeAndTrimInPlace(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) -> Range<Int> {
        let decoded = decodeInPlace(buffer, count: count)
        return trimmedRange(UnsafeBufferPointer(rebasing: buffer[..<decoded]))
    }

    /// Writes `html` without its markup into `output` (at least as long), whitespace collapsed; returns
    /// how many bytes were written.
    private static func strip(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var written = 0
        var index = 0
        let end = bytes.count
        var pendingSpace = false
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        /// The index just after `needle` (ASCII, matched without case) at or after `start`, or `end`.
        func skip(past needle: StaticString, from start: Int) -> Int {
            let count = needle.utf8CodeUnitCount
            let pattern = needle.utf8Start
            var cursor = start
            while cursor + count <= end {
                var matched = true
                for offset in 0..<count where bytes[cursor + offset] | 0x20 != pattern[offset] | 0x20 {
                    matched = false
                    break
                }
                if matched { return cursor + count }
                cursor += 1
            }
            return end
        }
        func skipTag(from start: Int) -> Int {
            var cursor = start
            var quote: UInt8 = 0
            while cursor < end {
                let byte = bytes[cursor]
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    return cursor + 1
                }
                cursor += 1
            }
            return end
        }
        while index < end {
            let byte = bytes[index]
            if byte > 0x20, byte != UInt8(ascii: "<") {
                // A run of text: copied up to the next space or tag.
                if pendingSpace, written > 0 {
                    output[written] = 0x20
                    written += 1
                }
                pendingSpace = false
                // A single space between two words is kept in the run: collapsing would write it anyway.
                var runEnd = index &+ 1
                while runEnd < end {
                    let next = bytes[runEnd]
                    if next > 0x20, next != UInt8(ascii: "<") {
                        runEnd &+= 1
                    } else if next == 0x20, runEnd &+ 1 < end, bytes[runEnd &+ 1] > 0x20, bytes[runEnd &+ 1] != UInt8(ascii: "<") {
                        runEnd &+= 2
                    } else {
                        break
                    }
                }
                (output.baseAddress! + written).update(from: bytes.baseAddress! + index, count: runEnd &- index)
                written &+= runEnd &- index
                index = runEnd
                continue
            }
            if byte == UInt8(ascii: "<"), index + 1 < end {
                let next = bytes[index + 1]
                if next == UInt8(ascii: "!") {
                    let isComment = index + 3 < end && bytes[index + 2] == UInt8(ascii: "-") && bytes[index + 3] == UInt8(ascii: "-")
                    index = isComment ? skip(past: "-->", from: index + 4) : skipTag(from: index)
                    pendingSpace = true
                    continue
                }
                let isClosing = next == UInt8(ascii: "/")
                let nameStart = index + (isClosing ? 2 : 1)
                if nameStart < end, isLetter(bytes[nameStart]) {
                    var code: UInt64 = 0
                    var cursor = nameStart
                    while cursor < end, isLetter(bytes[cursor]) || (bytes[cursor] >= 0x30 && bytes[cursor] <= 0x39) {
                        if cursor - nameStart < 8 { code = code << 8 | UInt64(bytes[cursor] | 0x20) }
                        cursor += 1
                    }
                    if cursor - nameStart > 8 { code = 0 }
                    index = skipTag(from: cursor)
                    if !isClosing, code == scriptCode {
                        index = skip(past: "</script", from: index)
                        index = skipTag(from: index)
                    }
                    if !isClosing, code == styleCode {
                        index = skip(past: "</style", from: index)
                        index = skipTag(from: index)
                    }
                    if !isInline(code) { pendingSpace = true }
                    continue
                }
            }
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                pendingSpace = true
                index += 1
                continue
            }
            if pendingSpace, written > 0 {
                output[written] = 0x20
                written += 1
            }
            pendingSpace = false
            output[written] = byte
            written += 1
            index += 1
        }
        return written
    }

    /// The part of `bytes` without leading and trailing ASCII whitespace and no-break spaces (what
    /// `trimmingWhitespace()` keeps).
    package static func trimmedRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C }
        var start = 0
        var end = bytes.count
        while start < end {
            if isSpace(bytes[start]) {
                start += 1
            } else if bytes[start] == 0xC2, start + 1 < end, bytes[start + 1] == 0xA0 {
                start += 2
            } else {
                break
            }
        }
        while end > start {
            if isSpace(bytes[end - 1]) {
                end -= 1
            } else if bytes[end - 1] == 0xA0, end - 1 > start, bytes[end - 2] == 0xC2 {
                end -= 2
            } else {
                break
            }
        }
        return start..<end
    }

    private static func code(_ name: String) -> UInt64 {
        name.utf8.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static let scriptCode = code("script")
    private static let styleCode = code("style")

    /// Elements that do not break words: no space is put where they start or end. Sorted, for a binary search.
    private static let inlineCodes: [UInt64] = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark", "q", "s",
        "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr",
    ].map(code).sorted()

    /// Whether the element whose name packs to `code` is one of ``inlineCodes``.
    private static func isInline(_ code: UInt64) -> Bool {
        let codes = inlineCodes
        var low = 0
        var high = codes.count
        while low < high {
            let middle = (low + high) / 2
            if codes[middle] == code { return true }
            if codes[middle] < code { low = middle + 1 } else { high = middle }
        }
        return false
    }

    /// Whether `text` holds markup: a tag or a character reference.
    public static func looksLikeHTML(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(looksLikeHTML)
    }

    /// Whether the UTF-8 `text` holds markup: a tag or a character reference.
    package static func looksLikeHTML(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard contains(UInt8(ascii: "<"), in: text) else { return false }
        var previousWasOpen = false
        for byte in text {
            if previousWasOpen, (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "!") {
                return true
            }
            previousWasOpen = byte == UInt8(ascii: "<")
        }
        return false
    }

    /// Whether the UTF-8 `html` may hold an `<img>` for ``firstImageSource(_:)``: `<` followed by `img` in
    /// any case, or by anything not ASCII (which a case-insensitive comparison might also take for it).
    package static func mayHoldImage(_ html: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = html.baseAddress else { return false }
        var index = 0
        while index < html.count {
            guard let found = memchr(base + index, Int32(UInt8(ascii: "<")), html.count - index) else { return false }
            let open = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let name = UnsafeBufferPointer(rebasing: html[(open + 1)..<min(open + 4, html.count)])
            if name.contains(where: { $0 >= 0x80 }) { return true }
            if name.count == 3, name[0] | 0x20 == UInt8(ascii: "i"), name[1] | 0x20 == UInt8(ascii: "m"),
                name[2] | 0x20 == UInt8(ascii: "g")
            {
                return true
            }
            index = open + 1
        }
        return false
    }

    /// The `src` of the first `<img>` in `html`, if any.
    public static func firstImageSource(_ html: String) -> String? {
        guard let tag = html.range(of: "<img", options: .caseInsensitive) else { return nil }
        let rest = html[tag.upperBound...]
        guard let close = rest.firstIndex(of: ">") else { return nil }
        let attributes = rest[..<close]
        guard let src = attributes.range(of: "src=", options: .caseInsensitive) else { return nil }
        var value = attributes[src.upperBound...]
        guard let quote = value.first else { return nil }
        if quote == "\"" || quote == "'" {
            value = value.dropFirst()
            guard let endQuote = value.firstIndex(of: quote) else { return nil }
            value = value[..<endQuote]
        } else {
            value = value.prefix { !$0.isWhitespace && $0 != ">" }
        }
        let url = decodeEntities(String(value)).trimmingWhitespace()
        return url.isEmpty ? nil : url
    }

    private static let windows1252: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
        0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
        0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
        0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
    ]

    /// Named character references: HTML 4's complete set and HTML5's common additions.
    package static let named: [String: UInt32] = [
        "AElig": 0xC6, "AMP": 0x26, "Aacute": 0xC1, "Acirc": 0xC2, "Agrave": 0xC0, "Alpha": 0x391, "Aring": 0xC5,
        "Atilde": 0xC3, "Auml": 0xC4, "Beta": 0x392, "COPY": 0xA9, "Ccedil": 0xC7, "Chi": 0x3A7, "Dagger": 0x2021,
        "Delta": 0x394, "ETH": 0xD0, "Eacute": 0xC9, "Ecirc": 0xCA, "Egrave": 0xC8, "Epsilon": 0x395, "Eta": 0x397,
        "Euml": 0xCB, "GT": 0x3E, "Gamma": 0x393, "Hat": 0x5E, "Iacute": 0xCD, "Icirc": 0xCE, "Igrave": 0xCC,
        "Iota": 0x399, "Iuml": 0xCF, "Kappa": 0x39A, "LT": 0x3C, "Lambda": 0x39B, "MediumSpace": 0x205F, "Mu": 0x39C,
        "NewLine": 0xA, "NoBreak": 0x2060, "Ntilde": 0xD1, "Nu": 0x39D, "OElig": 0x152, "Oacute": 0xD3,
        "Ocirc": 0xD4, "Ograve": 0xD2, "Omega": 0x3A9, "Omicron": 0x39F, "Oslash": 0xD8, "Otilde": 0xD5,
        "Ouml": 0xD6, "Phi": 0x3A6, "Pi": 0x3A0, "Prime": 0x2033, "Psi": 0x3A8, "QUOT": 0x22, "REG": 0xAE,
        "Rho": 0x3A1, "Scaron": 0x160, "Sigma": 0x3A3, "THORN": 0xDE, "TRADE": 0x2122, "Tab": 0x9, "Tau": 0x3A4,
        "Theta": 0x398, "Uacute": 0xDA, "Ucirc": 0xDB, "Ugrave": 0xD9, "Upsilon": 0x3A5, "Uuml": 0xDC, "Xi": 0x39E,
        "Yacute": 0xDD, "Yuml": 0x178, "ZeroWidthSpace": 0x200B, "Zeta": 0x396, "aacute": 0xE1, "acirc": 0xE2,
        "acute": 0xB4, "aelig": 0xE6, "agrave": 0xE0, "alefsym": 0x2135, "alpha": 0x3B1, "amp": 0x26, "and": 0x2227,
        "ang": 0x2220, "apos": 0x27, "aring": 0xE5, "ast": 0x2A, "asymp": 0x2248, "atilde": 0xE3, "auml": 0xE4,
        "bdquo": 0x201E, "beta": 0x3B2, "bigstar": 0x2605, "brvbar": 0xA6, "bsol": 0x5C, "bull": 0x2022,
        "bullet": 0x2022, "cap": 0x2229, "caret": 0x2041, "ccedil": 0xE7, "cedil": 0xB8, "cent": 0xA2,
        "check": 0x2713, "chi": 0x3C7, "circ": 0x2C6, "clubs": 0x2663, "colon": 0x3A, "comma": 0x2C, "commat": 0x40,
        "cong": 0x2245, "copy": 0xA9, "crarr": 0x21B5, "cross": 0x2717, "cup": 0x222A, "curren": 0xA4,
        "dArr": 0x21D3, "dagger": 0x2020, "darr": 0x2193, "dash": 0x2010, "deg": 0xB0, "delta": 0x3B4,
        "diams": 0x2666, "divide": 0xF7, "dollar": 0x24, "eacute": 0xE9, "ecirc": 0xEA, "egrave": 0xE8,
        "empty": 0x2205, "emsp": 0x2003, "ensp": 0x2002, "epsilon": 0x3B5, "equals": 0x3D, "equiv": 0x2261,
        "eta": 0x3B7, "eth": 0xF0, "euml": 0xEB, "euro": 0x20AC, "excl": 0x21, "exist": 0x2203, "female": 0x2640,
        "flat": 0x266D, "fnof": 0x192, "forall": 0x2200, "frac12": 0xBD, "frac13": 0x2153, "frac14": 0xBC,
        "frac23": 0x2154, "frac34": 0xBE, "frasl": 0x2044, "gamma": 0x3B3, "ge": 0x2265, "grave": 0x60, "gt": 0x3E,
        "hArr": 0x21D4, "hairsp": 0x200A, "half": 0xBD, "harr": 0x2194, "hearts": 0x2665, "hellip": 0x2026,
        "horbar": 0x2015, "hyphen": 0x2010, "iacute": 0xED, "icirc": 0xEE, "iexcl": 0xA1, "igrave": 0xEC,
        "image": 0x2111, "infin": 0x221E, "int": 0x222B, "iota": 0x3B9, "iquest": 0xBF, "isin": 0x2208, "iuml": 0xEF,
        "kappa": 0x3BA, "lArr": 0x21D0, "lambda": 0x3BB, "lang": 0x2329, "laquo": 0xAB, "larr": 0x2190,
        "lceil": 0x2308, "lcub": 0x7B, "ldquo": 0x201C, "le": 0x2264, "lfloor": 0x230A, "lowast": 0x2217,
        "lowbar": 0x5F, "loz": 0x25CA, "lpar": 0x28, "lrm": 0x200E, "lsaquo": 0x2039, "lsqb": 0x5B, "lsquo": 0x2018,
        "lsquor": 0x201A, "lt": 0x3C, "macr": 0xAF, "male": 0x2642, "mdash": 0x2014, "micro": 0xB5, "middot": 0xB7,
        "minus": 0x2212, "mldr": 0x2026, "mu": 0x3BC, "nabla": 0x2207, "natural": 0x266E, "nbsp": 0xA0,
        "ndash": 0x2013, "ne": 0x2260, "ni": 0x220B, "not": 0xAC, "notin": 0x2209, "nsub": 0x2284, "ntilde": 0xF1,
        "nu": 0x3BD, "num": 0x23, "numsp": 0x2007, "oacute": 0xF3, "ocirc": 0xF4, "oelig": 0x153, "ograve": 0xF2,
        "oline": 0x203E, "omega": 0x3C9, "omicron": 0x3BF, "oplus": 0x2295, "or": 0x2228, "ordf": 0xAA, "ordm": 0xBA,
        "oslash": 0xF8, "otilde": 0xF5, "otimes": 0x2297, "ouml": 0xF6, "para": 0xB6, "part": 0x2202, "percnt": 0x25,
        "period": 0x2E, "permil": 0x2030, "perp": 0x22A5, "phi": 0x3C6, "phone": 0x260E, "pi": 0x3C0, "piv": 0x3D6,
        "plus": 0x2B, "plusmn": 0xB1, "pound": 0xA3, "prime": 0x2032, "prod": 0x220F, "prop": 0x221D, "psi": 0x3C8,
        "puncsp": 0x2008, "quest": 0x3F, "quot": 0x22, "rArr": 0x21D2, "radic": 0x221A, "rang": 0x232A,
        "raquo": 0xBB, "rarr": 0x2192, "rceil": 0x2309, "rcub": 0x7D, "rdquo": 0x201D, "real": 0x211C, "reg": 0xAE,
        "rfloor": 0x230B, "rho": 0x3C1, "rlm": 0x200F, "rpar": 0x29, "rsaquo": 0x203A, "rsqb": 0x5D, "rsquo": 0x2019,
        "rsquor": 0x2019, "sbquo": 0x201A, "scaron": 0x161, "sdot": 0x22C5, "sect": 0xA7, "semi": 0x3B,
        "sharp": 0x266F, "shy": 0xAD, "sigma": 0x3C3, "sigmaf": 0x3C2, "sim": 0x223C, "sol": 0x2F, "spades": 0x2660,
        "star": 0x2606, "starf": 0x2605, "sub": 0x2282, "sube": 0x2286, "sum": 0x2211, "sup": 0x2283, "sup1": 0xB9,
        "sup2": 0xB2, "sup3": 0xB3, "supe": 0x2287, "szlig": 0xDF, "tau": 0x3C4, "there4": 0x2234, "theta": 0x3B8,
        "thetasym": 0x3D1, "thinsp": 0x2009, "thorn": 0xFE, "tilde": 0x2DC, "times": 0xD7, "trade": 0x2122,
        "uArr": 0x21D1, "uacute": 0xFA, "uarr": 0x2191, "ucirc": 0xFB, "ugrave": 0xF9, "uml": 0xA8, "upsih": 0x3D2,
        "upsilon": 0x3C5, "uuml": 0xFC, "verbar": 0x7C, "vert": 0x7C, "weierp": 0x2118, "xi": 0x3BE, "yacute": 0xFD,
        "yen": 0xA5, "yuml": 0xFF, "zeta": 0x3B6, "zwj": 0x200D, "zwnj": 0x200C,
    ]
}

extension String {
    /// The string without leading and trailing ASCII whitespace and no-break spaces.
    package func trimmingWhitespace() -> String {
        var copy = self
        return copy.withUTF8 { bytes in
            let kept = HTMLText.trimmedRange(bytes)
            return kept.count == bytes.count ? nil : String(decoding: UnsafeBufferPointer(rebasing: bytes[kept]), as: UTF8.self)
        } ?? self
    }
}

// MARK: - Liquid's escape, escape_once and strip_html

extension HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` written as entities (Liquid's `escape`).
    public static func escape(_ text: String) -> String {
        // By UTF-8 byte, not by Character: a combining mark after a quote must not hide the quote.
        func special(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
                || byte == UInt8(ascii: "'")
        }
        guard text.utf8.contains(where: special) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes like ``escape(_:)`` but leaves existing entities (`&amp;`, `&#39;`) alone.
    static func escapeOnce(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "&", isEntity(scalars, at: index) {
                result.append(scalar)
            } else {
                result.append(contentsOf: escape(String(scalar)).unicodeScalars)
            }
            index += 1
        }
        return String(result)
    }

    /// Whether an entity (`&name;` or `&#123;`) starts at `index`.
    private static func isEntity(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var position = index + 1
        guard position < scalars.count else { return false }
        if scalars[position] == "#" {
            position += 1
            let start = position
            while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
            return position > start && position < scalars.count && scalars[position] == ";"
        }
        let start = position
        while position < scalars.count, ("a"..."z").contains(scalars[position]) || ("A"..."Z").contains(scalars[position]) {
            position += 1
        }
        return position > start && position < scalars.count && scalars[position] == ";"
    }

    /// Removes `<script>`, `<style>` and comment blocks with their content, then every other tag.
    static func stripTags(_ text: String) -> String {
        var rest = Substring(text)
        var result = ""
        let blocks: [(open: String, close: String)] = [("<script", "</script>"), ("<!--", "-->"), ("<style", "</style>")]
        outer: while let start = rest.firstIndex(of: "<") {
            result += rest[..<start]
            let tail = rest[start...]
            for block in blocks where tail.hasPrefix(block.open) {
                if let close = tail.firstRange(of: block.close) {
                    rest = tail[close.upperBound...]
                    continue outer
                }
            }
            if let close = tail.firstIndex(of: ">") {
                rest = tail[tail.index(after: close)...]
            } else {
                result += tail
                rest = ""
            }
        }
        result += rest
        return result
    }
}
