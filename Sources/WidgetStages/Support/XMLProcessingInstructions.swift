import Foundation

/// Works around a crash in Foundation's `XMLParser` on Linux: a processing instruction without data
/// (`<?name?>`) makes it read a null string. Such instructions carry nothing a widget needs, so they
/// are removed before parsing; every other byte, CDATA sections and comments included, is kept.
enum XMLProcessingInstructions {
    /// `data` without processing instructions that have no data; `data` itself when it has none.
    static func removingEmpty(from data: Data) -> Data {
        let bytes = [UInt8](data)
        let count = bytes.count
        // Fast path: no "<?" after the first few bytes means nothing to do.
        var found = false
        var probe = 0
        while probe + 1 < count {
            if bytes[probe] == UInt8(ascii: "<"), bytes[probe + 1] == UInt8(ascii: "?") {
                found = true
                break
            }
            probe += 1
        }
        guard found else { return data }

        func matches(_ text: StaticString, at index: Int) -> Bool {
            let length = text.utf8CodeUnitCount
            guard index + length <= count else { return false }
            let pointer = text.utf8Start
            for offset in 0..<length where bytes[index + offset] != pointer[offset] { return false }
            return true
        }
        func find(_ text: StaticString, from index: Int) -> Int? {
            var cursor = index
            while cursor < count {
                if matches(text, at: cursor) { return cursor }
                cursor += 1
            }
            return nil
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        var output: [UInt8] = []
        output.reserveCapacity(count)
        var index = 0
        var changed = false
        while index < count {
            if matches("<![CDATA[", at: index) {
                let end = find("]]>", from: index + 9).map { $0 + 3 } ?? count
                output.append(contentsOf: bytes[index..<end])
                index = end
            } else if matches("<!--", at: index) {
                let end = find("-->", from: index + 4).map { $0 + 3 } ?? count
                output.append(contentsOf: bytes[index..<end])
                index = end
            } else if matches("<?", at: index) {
                let close = find("?>", from: index + 2)
                let end = close.map { $0 + 2 } ?? count
                let inner = close.map { Array(bytes[(index + 2)..<$0]) } ?? []
                let target = inner.prefix { !isSpace($0) }
                let rest = inner.dropFirst(target.count).drop(while: isSpace)
                if close == nil || target.isEmpty || rest.isEmpty {
                    changed = true
                } else {
                    output.append(contentsOf: bytes[index..<end])
                }
                index = end
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return changed ? Data(output) : data
    }
}
