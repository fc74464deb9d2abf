public import Foundation

/// Reads JSON (RFC 8259) into ``WidgetValue``s, keeping numbers exact.
///
/// The reader accepts exactly the JSON grammar: no comments, no trailing commas, no leading zeros, no
/// unescaped control characters in strings. Nesting is bounded by ``maximumDepth`` so that hostile input
/// cannot exhaust the stack. Invalid UTF-8 inside strings is replaced with U+FFFD rather than rejected.
///
/// ```swift
/// let value = try JSONReader.read(Data(#"{"price": 0.10}"#.utf8))
/// ```
public enum JSONReader {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Reads one JSON document.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func read(_ data: Data) throws(JSONSyntaxError) -> WidgetValue {
        let result: Result<WidgetValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            read(raw.bindMemory(to: UInt8.self), locations: nil)
        }
        return try result.get()
    }

    /// Reads one JSON document from text.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func read(_ text: String) throws(JSONSyntaxError) -> WidgetValue {
        var text = text
        let result: Result<WidgetValue, JSONSyntaxError> = text.withUTF8 { bytes in
            read(bytes, locations: nil)
        }
        return try result.get()
    }

    /// Reads one JSON document and records where every value and key starts, for error messages that
    /// point into the file.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func readWithLocations(_ data: Data) throws(JSONSyntaxError) -> (WidgetValue, SourceMap) {
        var map = SourceMap()
        let result: Result<WidgetValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            read(raw.bindMemory(to: UInt8.self), locations: &map)
        }
        return (try result.get(), map)
    }

    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>,
        locations: UnsafeMutablePointer<SourceMap>?
    ) -> Result<WidgetValue, JSONSyntaxError> {
        var scanner = Scanner(bytes: bytes, tracking: locations != nil)
        do throws(JSONSyntaxError) {
            scanner.skipByteOrderMark()
            scanner.skipWhitespace()
            let value = try scanner.readValue(depth: 0)
            scanner.skipWhitespace()
            if scanner.position < bytes.count {
                throw scanner.error("unexpected text after the end of the document")
            }
            if let locations { locations.pointee = scanner.map }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

// MARK: - Scanner

extension JSONReader {
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        let tracking: Bool
        var map = SourceMap()
        var path: [ValuePath.Component] = []
        // Incremental line counting for located reads.
        var countedOffset = 0
        var countedLine = 1
        var countedLineStart = 0

        init(bytes: UnsafeBufferPointer<UInt8>, tracking: Bool) {
            self.bytes = bytes
            self.tracking = tracking
        }

        // MARK: Errors and locations

        func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
            let offset = min(offset ?? position, bytes.count)
            var line = 1
            var lineStart = 0
            for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            return JSONSyntaxError(
                location: SourceLocation(line: line, column: Scanner.column(bytes, from: lineStart, to: offset)),
                offset: offset,
                reason: reason
            )
        }

        static func column(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
            var column = 1
            var index = start
            while index < end {
                if bytes[index] & 0xC0 != 0x80 { column += 1 }
                index += 1
            }
            // The byte at `end` starts the reported character; continuation bytes before it were not counted.
            return column
        }

        mutating func location(at offset: Int) -> SourceLocation {
            if offset < countedOffset {
                countedOffset = 0
                countedLine = 1
                countedLineStart = 0
            }
            while countedOffset < offset {
                if bytes[countedOffset] == UInt8(ascii: "\n") {
                    countedLine += 1
                    countedLineStart = countedOffset + 1
                }
                countedOffset += 1
            }
            return SourceLocation(line: countedLine, column: Scanner.column(bytes, from: countedLineStart, to: offset))
        }

        func describe(_ byte: UInt8) -> String {
            switch byte {
            case 0x20...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
            default: "byte 0x" + String(byte, radix: 16, uppercase: true)
            }
        }

        // MARK: Whitespace

        mutating func skipByteOrderMark() {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        }

        @inline(__always)
        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        // MARK: Values

        mutating func readValue(depth: Int) throws(JSONSyntaxError) -> WidgetValue {
            guard position < bytes.count else { throw error("unexpected end of the document; expected a value") }
            if tracking { map.recordValue(location(at: position), for: ValuePath(components: path)) }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                return try readObject(depth: depth + 1)
            case UInt8(ascii: "["):
                return try readArray(depth: depth + 1)
            case UInt8(ascii: "\""):
                return .string(try readString())
            case UInt8(ascii: "t"):
                try expectWord("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectWord("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectWord("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try readNumber())
            case let byte:
                throw error("unexpected \(describe(byte)); expected a value")
            }
        }

        mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
            let start = position
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else {
                throw error("unexpected end of the document; expected '\(word)'", at: start)
            }
            let pointer = word.utf8Start
            for index in 0..<count where bytes[position + index] != pointer[index] {
                throw error("invalid literal; expected '\(word)'", at: start)
            }
            position += count
        }

        mutating func readArray(depth: Int) throws(JSONSyntaxError) -> WidgetValue {
            guard depth <= JSONReader.maximumDepth else {
                throw error("arrays and objects are nested deeper than \(JSONReader.maximumDepth) levels")
            }
            position += 1
            var elements: [WidgetValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                if tracking { path.append(.index(elements.count)) }
                elements.append(try readValue(depth: depth))
                if tracking { path.removeLast() }
                skipWhitespace()
                guard position < bytes.count else {
                    throw error("unexpected end of the document; expected ',' or ']' in an array")
                }
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: ",") {
                    skipWhitespace()
                    continue
                }
                if byte == UInt8(ascii: "]") { return .array(elements) }
                throw error("unexpected \(describe(byte)); expected ',' or ']' in an array", at: position - 1)
            }
        }

        mutating func readObject(depth: Int) throws(JSONSyntaxError) -> WidgetValue {
            guard depth <= JSONReader.maximumDepth else {
                throw error("arrays and objects are nested deeper than \(JSONReader.maximumDepth) levels")
            }
            position += 1
            var object = WidgetObject()
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(object)
            }
            while true {
                guard position < bytes.count else {
                    throw error("unexpected end of the document; expected a member name in quotes")
                }
                guard bytes[position] == UInt8(ascii: "\"") else {
                    throw error("unexpected \(describe(bytes[position])); expected a member name in quotes")
                }
                let keyOffset = position
                let key = try readString()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    if position >= bytes.count { throw error("unexpected end of the document; expected ':'") }
                    throw error("unexpected \(describe(bytes[position])); expected ':' after a member name")
                }
                position += 1
                skipWhitespace()
                if tracking {
                    path.append(.key(key))
                    map.recordKey(location(at: keyOffset), for: ValuePath(components: path))
                }
                let value = try readValue(depth: depth)
                if tracking { path.removeLast() }
                if object.position(of: key) != nil {
                    object[key] = value
                } else {
                    object.appendUnchecked(key: key, value: value)
                }
                skipWhitespace()
                guard position < bytes.count else {
                    throw error("unexpected end of the document; expected ',' or '}' in an object")
                }
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: ",") {
                    skipWhitespace()
                    continue
                }
                if byte == UInt8(ascii: "}") { return .object(object) }
                throw error("unexpected \(describe(byte)); expected ',' or '}' in an object", at: position - 1)
            }
        }

        // MARK: Numbers

        mutating func readNumber() throws(JSONSyntaxError) -> WidgetNumber {
            let start = position
            @inline(__always) func isDigit(_ index: Int) -> Bool {
                index < bytes.count && bytes[index] &- 48 < 10
            }
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard isDigit(position) else { throw error("a number needs a digit after '-'") }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if isDigit(position) { throw error("numbers cannot have leading zeros", at: start) }
            } else {
                while isDigit(position) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard isDigit(position) else { throw error("a number needs a digit after '.'") }
                while isDigit(position) { position += 1 }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard isDigit(position) else { throw error("a number needs a digit in its exponent") }
                while isDigit(position) { position += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            return WidgetNumber(unchecked: text)
        }

        // MARK: Strings

        mutating func readString() throws(JSONSyntaxError) -> String {
            let start = position + 1
            var index = start
            // Fast path: no escapes.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    position = index + 1
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            var buffer = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    position = index + 1
                    return String(decoding: buffer, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    switch bytes[index] {
                    case UInt8(ascii: "\""): buffer.append(0x22)
                    case UInt8(ascii: "\\"): buffer.append(0x5C)
                    case UInt8(ascii: "/"): buffer.append(0x2F)
                    case UInt8(ascii: "b"): buffer.append(0x08)
                    case UInt8(ascii: "f"): buffer.append(0x0C)
                    case UInt8(ascii: "n"): buffer.append(0x0A)
                    case UInt8(ascii: "r"): buffer.append(0x0D)
                    case UInt8(ascii: "t"): buffer.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try readHex4(at: index + 1)
                        index += 4
                        if scalar >= 0xD800, scalar < 0xDC00,
                            index + 6 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u"),
                            let low = try? readHex4(at: index + 3), low >= 0xDC00, low < 0xE000
                        {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            index += 6
                        }
                        // A lone surrogate becomes U+FFFD.
                        let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                        buffer.append(contentsOf: String(character).utf8)
                    default:
                        throw error("invalid escape '\\\(Character(Unicode.Scalar(bytes[index])))' in a string", at: index - 1)
                    }
                    index += 1
                case 0..<0x20:
                    throw error("control character \(describe(byte)) in a string; escape it, e.g. \\n", at: index)
                default:
                    buffer.append(byte)
                    index += 1
                }
            }
            throw error("unexpected end of the document inside a string", at: bytes.count)
        }

        func readHex4(at offset: Int) throws(JSONSyntaxError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits", at: offset) }
            var value: UInt32 = 0
            for index in offset..<offset + 4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 48
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 87
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 55
                default: throw error("a \\u escape needs four hex digits", at: index)
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}
