import Foundation
import WidgetJSON

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

    /// An object or array being read, changed in place on the stack.
    private struct Frame {
        var isObject: Bool
        /// Where an object's keys start on the stack of key hashes that the open objects share (see
        /// `prepare`): its keys so far, by the stable hash of their text, with the offset each was first
        /// written at (a key is compared as text only when its hash was seen before).
        var keysStart: Int
        /// The object's keys once it has more than `linearKeys`, by hash, instead of on the stack.
        var keyIndex: [UInt64: Int]?

        /// The number of keys searched in order before the object builds ``keyIndex``.
        static let linearKeys = 16
        /// Where an object's current key is written (its opening quote), for the path of a duplicate.
        var key: Int?
        /// Whether an object's next string is a key.
        var expectingKey = true
        /// An array's current index.
        var index = 0
    }

    /// `data` with comments and trailing commas blanked out, and the keys it repeats.
    ///
    /// One pass finds what to blank and the keys; a second builds the new text only when there is
    /// something to blank. Lines and columns are worked out only for what is reported.
    static func prepare(_ data: Data) -> Prepared {
        let bytes = [UInt8](data)
        // The scan reads every byte through a pointer: `Array`'s checked subscript cost several
        // instructions a byte more.
        return bytes.withUnsafeBufferPointer { buffer in prepare(data, bytes: bytes, buffer: buffer) }
    }

    /// ``prepare(_:)`` over `buffer`, the bytes of `bytes`, which is `data`'s.
    private static func prepare(_ data: Data, bytes: [UInt8], buffer: UnsafeBufferPointer<UInt8>) -> Prepared {
        let count = buffer.count
        /// Byte ranges to blank: comments (a space a character, line breaks kept) and trailing commas.
        var blanks: [Range<Int>] = []
        var duplicates: [(object: ValuePath, key: String, first: Int, second: Int)] = []
        var stack: [Frame] = []
        /// The keys of the open objects, each object's above its parent's (see `Frame.keysStart`).
        var keyHashes: [(hash: UInt64, offset: Int)] = []
        keyHashes.reserveCapacity(64)
        var pendingComma: Int?
        var index = 0

        /// Where the first key with `hash` of the object at `top` was written, or `nil` after recording
        /// `offset` as its place.
        func firstKey(in top: Int, hash: UInt64, at offset: Int) -> Int? {
            if stack[top].keyIndex != nil {
                if let first = stack[top].keyIndex![hash] { return first }
                stack[top].keyIndex![hash] = offset
                return nil
            }
            let start = stack[top].keysStart
            for position in start..<keyHashes.count where keyHashes[position].hash == hash { return keyHashes[position].offset }
            keyHashes.append((hash, offset))
            if keyHashes.count - start > Frame.linearKeys {
                var keyIndex: [UInt64: Int] = [:]
                for key in keyHashes[start...] { keyIndex[key.hash] = key.offset }
                stack[top].keyIndex = keyIndex
                keyHashes.removeSubrange(start...)
            }
            return nil
        }

        /// The path of the object or array on top of the stack.
        func containerPath() -> ValuePath {
            var components: [ValuePath.Component] = []
            for frame in stack.dropLast() {
                if frame.isObject {
                    if let key = frame.key { components.append(.key(keyText(at: key, in: bytes))) }
                } else {
                    components.append(.index(frame.index))
                }
            }
            return ValuePath(components: components)
        }

        while index < count {
            let byte = buffer[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "/")
            where index + 1 < count && (buffer[index + 1] == UInt8(ascii: "/") || buffer[index + 1] == UInt8(ascii: "*")):
                let start = index
                if buffer[index + 1] == UInt8(ascii: "/") {
                    index += 2
                    while index < count, buffer[index] != 0x0A { index += 1 }
                } else {
                    index += 2
                    while index + 1 < count, !(buffer[index] == UInt8(ascii: "*") && buffer[index + 1] == UInt8(ascii: "/")) { index += 1 }
                    guard index + 1 < count else {
                        return Prepared(data: data, unclosedComment: location(of: start, in: bytes))
                    }
                    index += 2
                }
                blanks.append(start..<index)
            case UInt8(ascii: "\""):
                let opening = index
                index += 1
                var escapes = false
                while index < count, buffer[index] != UInt8(ascii: "\"") {
                    if buffer[index] == UInt8(ascii: "\\") {
                        escapes = true
                        index += 1
                    }
                    index += 1
                }
                index = min(index + 1, count)
                pendingComma = nil
                if let top = stack.indices.last, stack[top].isObject, stack[top].expectingKey {
                    // Escapes are rare in keys; only then is the key decoded before it is hashed.
                    let hash =
                        escapes
                        ? StableHash.fnv1a(keyText(at: opening, in: bytes).utf8)
                        : StableHash.fnv1a(buffer[(opening + 1)..<max(opening + 1, index - 1)])
                    if let first = firstKey(in: top, hash: hash, at: opening) {
                        let key = keyText(at: opening, in: bytes)
                        if key == keyText(at: first, in: bytes) { duplicates.append((containerPath(), key, first, opening)) }
                    }
                    stack[top].key = opening
                    stack[top].expectingKey = false
                }
            case UInt8(ascii: ","):
                pendingComma = index
                if let top = stack.indices.last {
                    if stack[top].isObject {
                        stack[top].expectingKey = true
                    } else {
                        stack[top].index += 1
                    }
                }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // A trailing comma: nothing but white space and comments since it.
                if let comma = pendingComma { blanks.append(comma..<(comma + 1)) }
                pendingComma = nil
                if let closed = stack.popLast(), keyHashes.count > closed.keysStart {
                    keyHashes.removeSubrange(closed.keysStart...)
                }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                pendingComma = nil
                stack.append(Frame(isObject: byte == UInt8(ascii: "{"), keysStart: keyHashes.count))
                index += 1
            default:
                pendingComma = nil
                index += 1
            }
        }
        var prepared = Prepared(data: data)
        prepared.duplicates = duplicates.map {
            Duplicate(object: $0.object, key: $0.key, first: location(of: $0.first, in: bytes), second: location(of: $0.second, in: bytes))
        }
        guard !blanks.isEmpty else { return prepared }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var copied = 0
        for blank in blanks.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            out.append(contentsOf: bytes[copied..<blank.lowerBound])
            // One space a character, line breaks kept: columns after the blank stay the file's.
            for position in blank {
                let byte = bytes[position]
                if byte == 0x0A || byte == 0x0D {
                    out.append(byte)
                } else if byte & 0xC0 != 0x80 {
                    out.append(0x20)
                }
            }
            copied = blank.upperBound
        }
        out.append(contentsOf: bytes[copied...])
        prepared.data = Data(out)
        return prepared
    }

    /// The text of the key whose opening quote is at `offset`, its escapes decoded.
    private static func keyText(at offset: Int, in bytes: [UInt8]) -> String {
        var end = offset + 1
        var escapes = false
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") {
                escapes = true
                end += 1
            }
            end += 1
        }
        let raw = bytes[(offset + 1)..<min(end, bytes.count)]
        guard escapes else { return String(decoding: raw, as: UTF8.self) }
        return (try? JSONReader.read(Data(bytes[offset..<min(end + 1, bytes.count)])))?.string ?? String(decoding: raw, as: UTF8.self)
    }

    /// The line and column (in Unicode scalars) of the byte at `offset`.
    private static func location(of offset: Int, in bytes: [UInt8]) -> SourceLocation {
        var line = 1
        var lineStart = 0
        for position in 0..<offset where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        let column = bytes[lineStart..<offset].reduce(1) { $1 & 0xC0 != 0x80 ? $0 + 1 : $0 }
        return SourceLocation(line: line, column: column)
    }
}
