import Foundation
import WidgetCore
import WidgetLiquid

/// Repairs the faults real feeds have that stop a conforming XML parser, before parsing:
/// HTML entities XML does not declare (`&nbsp;`, `&eacute;`), bare ampersands (`Q&A`), a byte-order mark
/// or blank lines before the XML declaration, and Windows-1252 bytes in a document declared as UTF-8.
///
/// Repairs cost nothing on a clean document: it is scanned once and returned as it is.
enum FeedInputRepair {
    /// `data` with undeclared entities and bare ampersands replaced (outside CDATA sections and comments),
    /// and anything before the first `<` removed; `nil` when nothing needed repairing.
    static func repairMarkup(_ data: Data) -> Data? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Data? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.count
            var leading = 0
            while leading < end, bytes[leading] != UInt8(ascii: "<") { leading += 1 }
            var output: [UInt8]? = nil
            var copiedUpTo = leading
            if leading > 0 { output = [] }
            var index = leading
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "<") {
                    if index + 8 < end, bytes[index + 1] == UInt8(ascii: "!") {
                        if bytes[index + 2] == UInt8(ascii: "[") {  // <![CDATA[ … ]]>
                            index = find(bytes, from: index + 9, "]]>") ?? end
                            continue
                        }
                        if bytes[index + 2] == UInt8(ascii: "-") {  // <!-- … -->
                            index = find(bytes, from: index + 4, "-->") ?? end
                            continue
                        }
                        if bytes[index + 2] == UInt8(ascii: "D") {  // A DOCTYPE may declare its own entities.
                            let close = find(bytes, from: index, ">") ?? end
                            if find(bytes[index..<min(close + 4096, end)], "<!ENTITY") != nil { return nil }
                        }
                    }
                    index += 1
                    continue
                }
                guard byte == UInt8(ascii: "&") else {
                    index += 1
                    continue
                }
                let (replacement, length) = entityRepair(bytes, at: index)
                if let replacement {
                    if output == nil {
                        output = []
                        output!.reserveCapacity(end + 64)
                    }
                    output!.append(contentsOf: bytes[copiedUpTo..<index])
                    output!.append(contentsOf: replacement)
                    copiedUpTo = index + length
                }
                index += max(length, 1)
            }
            guard var result = output else { return nil }
            result.append(contentsOf: bytes[copiedUpTo..<end])
            return Data(result)
        }
    }

    /// What the `&` at `index` must become, if anything, and how many bytes it spans.
    private static func entityRepair(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> ([UInt8]?, Int) {
        let end = bytes.count
        var cursor = index + 1
        if cursor < end, bytes[cursor] == UInt8(ascii: "#") {
            cursor += 1
            let hex = cursor < end && (bytes[cursor] | 0x20) == UInt8(ascii: "x")
            if hex { cursor += 1 }
            let digitsStart = cursor
            while cursor < end, cursor - digitsStart < 8,
                bytes[cursor] >= 0x30 && bytes[cursor] <= 0x39 || hex && (bytes[cursor] | 0x20) >= 0x61 && (bytes[cursor] | 0x20) <= 0x66
            {
                cursor += 1
            }
            if cursor > digitsStart, cursor < end, bytes[cursor] == UInt8(ascii: ";") {
                // Numbers XML forbids (control characters) become U+FFFD; Windows-1252 punctuation is mapped.
                var value: UInt32 = 0
                for position in digitsStart..<cursor {
                    let byte = bytes[position] | (hex ? 0x20 : 0)
                    value = value &* (hex ? 16 : 10) &+ UInt32(byte <= 0x39 ? byte - 0x30 : byte - 0x61 + 10)
                }
                if value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value < 0x80) || (value > 0x9F && value <= 0xD7FF)
                    || (value >= 0xE000 && value <= 0x10FFFF && value != 0xFFFE && value != 0xFFFF)
                {
                    return (nil, cursor + 1 - index)
                }
                let mapped = HTMLText.decodeEntities(String(decoding: bytes[index...cursor], as: UTF8.self))
                let scalar = mapped.unicodeScalars.first.map { $0.value } ?? 0xFFFD
                let safe = (0x80...0x9F).contains(scalar) || scalar < 0x20 ? 0xFFFD : scalar
                return (Array("&#\(safe);".utf8), cursor + 1 - index)
            }
            return (Array("&amp;".utf8), 1)
        }
        let nameStart = cursor
        while cursor < end, cursor - nameStart < 32,
            (bytes[cursor] | 0x20) >= 0x61 && (bytes[cursor] | 0x20) <= 0x7A || bytes[cursor] >= 0x30 && bytes[cursor] <= 0x39
        {
            cursor += 1
        }
        guard cursor > nameStart, cursor < end, bytes[cursor] == UInt8(ascii: ";") else {
            return (Array("&amp;".utf8), 1)
        }
        let name = String(decoding: bytes[nameStart..<cursor], as: UTF8.self)
        switch name {
        case "amp", "lt", "gt", "quot", "apos":
            return (nil, cursor + 1 - index)
        default:
            if let value = HTMLText.namedValue(UnsafeBufferPointer(rebasing: bytes[nameStart..<cursor])) {
                return (Array("&#\(value);".utf8), cursor + 1 - index)
            }
            return (Array("&amp;".utf8), 1)
        }
    }

    private static func find(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ needle: StaticString) -> Int? {
        let pattern = needle.withUTF8Buffer { Array($0) }
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0] {
                var matched = true
                for offset in 1..<max(pattern.count, 1) where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched { return index + pattern.count }
            }
            index += 1
        }
        return nil
    }

    private static func find(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ needle: StaticString) -> Int? {
        find(UnsafeBufferPointer(rebasing: bytes), from: 0, needle)
    }

    // MARK: - Encoding

    /// The `encoding` of the XML declaration, lowercased; `nil` when there is none.
    static func declaredEncoding(_ data: Data) -> String? {
        let head = String(decoding: data.prefix(200), as: UTF8.self)
        guard head.hasPrefix("<?xml") || head.drop(while: { $0 != "<" }).hasPrefix("<?xml"),
            let declarationEnd = head.range(of: "?>"), let key = head.range(of: "encoding")
        else { return nil }
        guard key.upperBound < declarationEnd.lowerBound else { return nil }
        let rest = head[key.upperBound..<declarationEnd.lowerBound].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote }).lowercased()
    }

    /// A document that is not UTF-8, as UTF-8 with a matching declaration, or `nil` when it is UTF-8
    /// already. The bytes are read as UTF-16 after a byte-order mark, else in the declared encoding when
    /// Foundation knows it, else as Windows-1252 (what browsers and feedparser do with mislabelled bytes).
    ///
    /// Foundation's `XMLParser` traps on some invalid UTF-8 (inside names, or under an encoding libxml2
    /// does not know), so every document that is not UTF-8 is converted before it is parsed.
    static func transcodeToUTF8(_ data: Data) -> Data? {
        if isValidUTF8(data) { return nil }
        var candidates: [String.Encoding] = []
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) { candidates.append(.utf16) }
        switch declaredEncoding(data) {
        case "iso-8859-1", "latin1", "latin-1", "iso8859-1": candidates.append(.isoLatin1)
        case "iso-8859-2", "latin2": candidates.append(.isoLatin2)
        case "shift_jis", "shift-jis", "sjis": candidates.append(.shiftJIS)
        case "euc-jp": candidates.append(.japaneseEUC)
        case "windows-1251", "cp1251": candidates.append(.windowsCP1251)
        case "windows-1250", "cp1250": candidates.append(.windowsCP1250)
        default: break
        }
        candidates += [.windowsCP1252, .isoLatin1]
        guard let text = candidates.lazy.compactMap({ String(data: data, encoding: $0) }).first else { return nil }
        var result = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        if result.hasPrefix("<?xml"), let declaration = result.range(of: "?>") {
            result.replaceSubrange(result.startIndex..<declaration.upperBound, with: "<?xml version=\"1.0\" encoding=\"utf-8\"?>")
        }
        return Data(result.utf8)
    }

    /// Whether `data` is well-formed UTF-8: ASCII 32 bytes at a time, other sequences checked in full
    /// (no overlong forms, no surrogates, nothing above U+10FFFF).
    static func isValidUTF8(_ data: Data) -> Bool {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.count
            var index = 0
            while index < end {
                if index + 32 <= end {
                    let words =
                        raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        | raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                        | raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                        | raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
                    if words & 0x8080_8080_8080_8080 == 0 {
                        index += 32
                        continue
                    }
                }
                if index + 8 <= end, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
                let lead = bytes[index]
                if lead < 0x80 {
                    index += 1
                    continue
                }
                let length: Int
                var lower: UInt8 = 0x80
                var upper: UInt8 = 0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0:
                    length = 3
                    lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED:
                    length = 3
                    upper = 0x9F
                case 0xF0:
                    length = 4
                    lower = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4:
                    length = 4
                    upper = 0x8F
                default: return false
                }
                guard index + length <= end else { return false }
                let second = bytes[index + 1]
                guard second >= lower, second <= upper else { return false }
                for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 {
                    return false
                }
                index += length
            }
            return true
        }
    }
}
