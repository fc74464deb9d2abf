import Foundation

/// Definition files as people write them: JSON with `//` and `/* */` comments and trailing commas, as
/// VS Code's settings files allow, and no key written twice in one object.
///
/// ``prepare(_:)`` reads the file once. It turns each comment into spaces (one a character, line breaks
/// kept) and drops each trailing comma for a space, so the result is plain JSON whose lines and columns
/// are the file's: every position an error names stays exact. It also finds keys written twice in one
/// object (JSON readers keep the last silently), with both places.
///
/// ```swift
/// let prepared = DefinitionText.prepare(Data(#"{"a": 1, // one\n "b": [2, 3,],}"#.utf8))
/// // prepared.data is {"a": 1,       \n "b": [2, 3 ] }
/// ```
enum DefinitionText {
    /// A key written twice in one object.
    struct Duplicate: Sendable, Hashable {
        /// The object's path.
        var object: ValuePath
        var key: String
        /// Where the key was written first, and again.
        var first: SourceLocation
        var second: SourceLocation
    }

    /// The file as plain JSON, what it repeats, and where a comment was left open.
    struct Prepared: Sendable {
        var data: Data
        var duplicates: [Duplicate] = []
        /// Where a `/*` without its `*/` starts.
        var unclosedComment: SourceLocation?
    }

    private enum Frame {
        case object(keys: [String: SourceLocation], key: String?, expectingKey: Bool)
        case array(index: Int)
    }

    /// `data` with comments and trailing commas blanked out, and the keys it repeats.
    static func prepare(_ data: Data) -> Prepared {
        // Most files have neither comments nor trailing commas: their bytes are kept as they are.
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var changed = false
        var duplicates: [Duplicate] = []
        var stack: [Frame] = []
        var line = 1
        var column = 1
        var pendingComma: Int?
        var index = 0
        let count = bytes.count

        /// Moves past the byte at `index` that was copied or blanked, keeping the line and column.
        func step(_ byte: UInt8) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }

        /// The path of the object or array on top of the stack.
        func containerPath() -> ValuePath {
            var components: [ValuePath.Component] = []
            for frame in stack.dropLast() {
                switch frame {
                case .object(_, let key, _): if let key { components.append(.key(key)) }
                case .array(let position): components.append(.index(position))
                }
            }
            return ValuePath(components: components)
        }

        while index < count {
            let byte = bytes[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                out.append(byte)
                step(byte)
                index += 1
            case UInt8(ascii: "/")
            where index + 1 < count && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")):
                changed = true
                let block = bytes[index + 1] == UInt8(ascii: "*")
                let start = SourceLocation(line: line, column: column)
                out.append(0x20)
                out.append(0x20)
                column += 2
                index += 2
                var closed = !block
                while index < count {
                    let inner = bytes[index]
                    if !block, inner == 0x0A { break }
                    if block, inner == UInt8(ascii: "*"), index + 1 < count, bytes[index + 1] == UInt8(ascii: "/") {
                        out.append(0x20)
                        out.append(0x20)
                        column += 2
                        index += 2
                        closed = true
                        break
                    }
                    // One space a character, line breaks kept: columns after the comment stay the file's.
                    if inner == 0x0A || inner == 0x0D {
                        out.append(inner)
                    } else if inner & 0xC0 != 0x80 {
                        out.append(0x20)
                    }
                    step(inner)
                    index += 1
                }
                if !closed { return Prepared(data: data, unclosedComment: start) }
            case UInt8(ascii: "\""):
                let start = SourceLocation(line: line, column: column)
                let opening = index
                out.append(byte)
                step(byte)
                index += 1
                var escaped = false
                while index < count {
                    let inner = bytes[index]
                    out.append(inner)
                    step(inner)
                    index += 1
                    if escaped {
                        escaped = false
                    } else if inner == UInt8(ascii: "\\") {
                        escaped = true
                    } else if inner == UInt8(ascii: "\"") {
                        break
                    }
                }
                pendingComma = nil
                if case .object(var keys, _, true) = stack.last {
                    let raw = Data(bytes[opening..<index])
                    let key = (try? JSONReader.read(raw))?.string ?? String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
                    if let first = keys[key] {
                        duplicates.append(Duplicate(object: containerPath(), key: key, first: first, second: start))
                    } else {
                        keys[key] = start
                    }
                    stack[stack.count - 1] = .object(keys: keys, key: key, expectingKey: false)
                }
            case UInt8(ascii: ","):
                pendingComma = out.count
                out.append(byte)
                step(byte)
                index += 1
                switch stack.last {
                case .object(let keys, let key, _): stack[stack.count - 1] = .object(keys: keys, key: key, expectingKey: true)
                case .array(let position): stack[stack.count - 1] = .array(index: position + 1)
                case nil: break
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if let comma = pendingComma {
                    // A trailing comma: nothing but white space and comments since it.
                    out[comma] = 0x20
                    changed = true
                }
                pendingComma = nil
                if !stack.isEmpty { stack.removeLast() }
                out.append(byte)
                step(byte)
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                pendingComma = nil
                stack.append(byte == UInt8(ascii: "{") ? .object(keys: [:], key: nil, expectingKey: true) : .array(index: 0))
                out.append(byte)
                step(byte)
                index += 1
            default:
                pendingComma = nil
                out.append(byte)
                step(byte)
                index += 1
            }
        }
        return Prepared(data: changed ? Data(out) : data, duplicates: duplicates)
    }
}
