import Foundation
import WidgetCore

/// Works around crashes in Foundation's `XMLParser` on Linux, which reads a null string (and dies) for a
/// processing instruction without data (`<?name?>`), an `<!ATTLIST>` without a default value, a
/// `<!NOTATION>` without a public or system id, and an unparsed `<!ENTITY … NDATA …>`. None of these
/// carries anything a widget needs, so processing instructions (all but the leading XML declaration)
/// and those declarations are removed before parsing — otherwise any feed could stop the daemon. Every
/// other byte, CDATA sections and comments included, is kept.
enum XMLInputGuard {
    /// `data` without the constructs above; `data` itself when it has none.
    static func sanitized(_ data: Data) -> Data {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Data in
            let count = bytes.count
            func matches(_ text: StaticString, at index: Int) -> Bool {
                let length = text.utf8CodeUnitCount
                guard index + length <= count else { return false }
                let pointer = text.utf8Start
                for offset in 0..<length where bytes[index + offset] != pointer[offset] { return false }
                return true
            }
            /// The next `byte` at or after `index`, or `count`.
            func next(_ byte: UInt8, from index: Int) -> Int {
                guard index < count, let base = bytes.baseAddress,
                    let found = memchr(base + index, Int32(byte), count - index)
                else { return count }
                return base.distance(to: UnsafeRawPointer(found))
            }
            // Every construct begins with `<!` or `<?`. Their second bytes are rare in a feed, where `<` is
            // the most common: the scan jumps from one `!` or `?` to the next (each found once).
            var nextBang = -1
            var nextQuestion = -1
            /// The next `<!` or `<?` at or after `index`, or `count`.
            func nextOpen(from index: Int) -> Int {
                var from = index + 1
                while from < count {
                    if nextBang < from { nextBang = next(UInt8(ascii: "!"), from: from) }
                    if nextQuestion < from { nextQuestion = next(UInt8(ascii: "?"), from: from) }
                    let candidate = min(nextBang, nextQuestion)
                    if candidate >= count { return count }
                    if bytes[candidate - 1] == UInt8(ascii: "<") { return candidate - 1 }
                    from = candidate + 1
                }
                return count
            }
            func find(_ text: StaticString, from index: Int) -> Int? {
                var cursor = index
                let first = text.utf8Start[0]
                while cursor < count {
                    cursor = next(first, from: cursor)
                    if cursor < count, matches(text, at: cursor) { return cursor }
                    cursor += 1
                }
                return nil
            }
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

            /// The index after the `>` that closes the declaration starting at `start`, skipping quoted text.
            func declarationEnd(from start: Int) -> Int {
                var cursor = start + 2
                var quote: UInt8?
                while cursor < count {
                    let byte = bytes[cursor]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        return cursor + 1
                    }
                    cursor += 1
                }
                return count
            }
            func declarationHasNDATA(from start: Int) -> Bool {
                let end = declarationEnd(from: start)
                var cursor = start
                while cursor + 5 <= end {
                    if matches("NDATA", at: cursor) { return true }
                    cursor += 1
                }
                return false
            }

            // The output is built only once something is removed: up to then, `copied` marks how much of
            // the input it would have taken as it is.
            var output: [UInt8] = []
            var copied = 0
            func remove(_ range: Range<Int>) {
                if output.isEmpty { output.reserveCapacity(count) }
                output.append(contentsOf: bytes[copied..<range.lowerBound])
                copied = range.upperBound
            }
            var index = nextOpen(from: 0)
            while index < count {
                if matches("<![CDATA[", at: index) {
                    index = find("]]>", from: index + 9).map { $0 + 3 } ?? count
                } else if matches("<!--", at: index) {
                    index = find("-->", from: index + 4).map { $0 + 3 } ?? count
                } else if matches("<!ATTLIST", at: index) || matches("<!NOTATION", at: index)
                    || (matches("<!ENTITY", at: index) && declarationHasNDATA(from: index))
                {
                    let end = declarationEnd(from: index)
                    remove(index..<end)
                    index = end
                } else if matches("<?", at: index) {
                    // Only the XML declaration at the very start is kept; every other processing instruction
                    // goes, up to its first "?>" (which also removes any "<?" nested in a broken one).
                    let close = find("?>", from: index + 2)
                    let end = close.map { $0 + 2 } ?? count
                    let leading = bytes[..<index].allSatisfy { isSpace($0) || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
                    // A real declaration holds no '<' or '>'; one that does is broken and goes too.
                    let clean =
                        close.map { !bytes[index + 2..<$0].contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") } } ?? false
                    if !(leading && clean && matches("<?xml", at: index) && index + 5 < count && isSpace(bytes[index + 5])) {
                        remove(index..<end)
                    }
                    index = end
                } else {
                    index += 1
                }
                index = nextOpen(from: index)
            }
            guard copied > 0 else { return data }
            output.append(contentsOf: bytes[copied..<count])
            return Data(output)
        }
    }

    /// The name of the first general or parameter entity `data` declares in its DTD (`<!ENTITY name …>`,
    /// except unparsed `NDATA` ones, which ``sanitized(_:)`` removes), or `nil`.
    ///
    /// Such documents are refused rather than read: XMLParser drops the text of a large entity without an
    /// error (the document would be stored empty and called fresh) and stops nested ones ("billion
    /// laughs") with a bare error number. Feeds have no need of them.
    static func declaredEntity(in data: Data) -> String? {
        guard let start = firstIndex(of: "<!ENTITY", in: data) else { return nil }
        let bytes = [UInt8](data[start...].prefix(4096))
        var cursor = 8
        func skipSpace() { while cursor < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 } }
        skipSpace()
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "%") {
            cursor += 1
            skipSpace()
        }
        var name: [UInt8] = []
        while cursor < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">")].contains(bytes[cursor]), name.count < 64 {
            name.append(bytes[cursor])
            cursor += 1
        }
        let declaration = bytes[cursor...].prefix { $0 != UInt8(ascii: ">") }
        if declaration.count < bytes.count - cursor,
            String(decoding: declaration, as: UTF8.self).contains("NDATA")
        {
            // Unparsed entities are removed before parsing; look for another declaration after this one.
            let next = start + cursor + declaration.count
            return declaredEntity(in: data[next...])
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// Where `text` first occurs in `data`: a `memchr` for its second byte, then a comparison. (Foundation's
    /// generic search was most of the time spent looking through a feed; the first byte of a markup
    /// declaration, `<`, is the most common one in a feed, its second, `!`, among the rarest.)
    private static func firstIndex(of text: StaticString, in data: Data) -> Data.Index? {
        let length = text.utf8CodeUnitCount
        precondition(length >= 2)
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Data.Index? in
            guard let base = bytes.baseAddress, bytes.count >= length else { return nil }
            var index = 1
            while index + length - 1 <= bytes.count {
                guard let found = memchr(base + index, Int32(text.utf8Start[1]), bytes.count - index) else { return nil }
                let position = base.distance(to: UnsafeRawPointer(found)) - 1
                guard position + length <= bytes.count else { return nil }
                if memcmp(base + position, text.utf8Start, length) == 0 { return data.startIndex + position }
                index = position + 2
            }
            return nil
        }
    }

    /// The error for a document that declares `entity`.
    static func entityError(_ entity: String, origin: String) -> StageError {
        StageError(
            "the payload from \(origin) declares the entity \"\(entity)\" in its DTD; widgetd does not expand "
                + "DTD entities (they can multiply a document a billion times), so it refuses the document rather "
                + "than store it without them; ask its publisher for a document without <!ENTITY> declarations")
    }
}
