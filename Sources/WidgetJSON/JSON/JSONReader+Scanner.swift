import Foundation

// MARK: - Scanner

extension JSONReader {
    /// Where an object key is written, and its hash, for finding repeated keys without comparing strings.
    struct KeyRecord {
        /// The key as written (escapes included), followed by its closing quote: in the input, or in the
        /// text of a shape (``JSONKeyCache/Shape``), which is padded so that a word can be read at any key.
        var text: UnsafePointer<UInt8>
        var length: Int
        /// ``JSONKeyCache/hash(_:count:)`` of the key's UTF-8 text (after unescaping).
        var hash: Int
        var escaped: Bool
    }

    /// The white space expected before the members or elements of a container, learnt from the one
    /// before: in a pretty-printed document, a line break and as many spaces.
    struct Indentation {
        /// The number of bytes of the line break and spaces; zero when none are expected.
        var length: Int
        /// Which bits of the first sixteen bytes they take up (as two little-endian words).
        var low: UInt64
        var high: UInt64

        static let none = Indentation(length: 0, low: 0, high: 0)

        private init(length: Int, low: UInt64, high: UInt64) {
            self.length = length
            self.low = low
            self.high = high
        }

        /// A line break and `spaces` spaces (up to 64; none expected past that).
        init(spaces: Int) {
            guard spaces <= 64 else {
                self = .none
                return
            }
            length = spaces + 1
            low = length >= 8 ? ~0 : (1 << UInt64(length * 8)) - 1
            high = length >= 16 ? ~0 : length <= 8 ? 0 : (1 << UInt64((length - 8) * 8)) - 1
        }
    }

    /// A 128-bit filter of key hashes: a key whose bit is not yet set cannot repeat an earlier key.
    struct KeyFilter {
        private var low: UInt64 = 0
        private var high: UInt64 = 0

        /// Sets the bit of `hash`; whether it was set already.
        @inline(__always)
        mutating func insert(_ hash: Int) -> Bool {
            let bit: UInt64 = 1 << UInt64(hash >> 20 & 63)
            if hash >> 26 & 1 == 0 {
                defer { low |= bit }
                return low & bit != 0
            }
            defer { high |= bit }
            return high & bit != 0
        }
    }

    /// One pass over the bytes of a document. Containers collect their members on shared scratch stacks
    /// and move them into exactly sized storage when they close; an object that follows a predicted shape
    /// puts its values straight into an array of that shape's size.
    struct Scanner: ~Copyable {
        /// Objects with up to this many members find repeated keys by a linear search of key hashes.
        static let linearKeySearchLimit = 64
        let base: UnsafePointer<UInt8>
        let count: Int
        var position = 0
        let tracking: Bool
        var map = SourceMap()
        var path: [ValuePath.Component] = []
        var values = JSONScratchStack<WidgetValue>(capacity: 64)
        var keys = JSONScratchStack<String>(capacity: 32)
        var keyRecords = JSONScratchStack<KeyRecord>(capacity: 32)
        var keyCache = JSONKeyCache()
        var strings = JSONStringCache()
        var unescaped = JSONScratchStack<UInt8>(capacity: 64)
        // Incremental line counting for located reads.
        var countedOffset = 0
        var countedLine = 1
        var countedColumn = 1
        /// The deepest nesting accepted (``JSONReader/maximumDepth``, or more for widgetd's own files).
        let maximumDepth: Int
        /// How many more values may be read before the document passes its limit.
        var valuesLeft: Int
        /// The most values the document may hold, for the message.
        let maximumValues: Int

        init(base: UnsafePointer<UInt8>, count: Int, tracking: Bool, maximumDepth: Int, maximumValues: Int) {
            self.base = base
            self.count = count
            self.tracking = tracking
            self.maximumDepth = maximumDepth
            self.maximumValues = maximumValues
            valuesLeft = maximumValues
        }

        // MARK: Errors and locations

        func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
            let offset = min(offset ?? position, count)
            var line = 1
            var column = 1
            for index in 0..<offset {
                let byte = base[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return JSONSyntaxError(location: SourceLocation(line: line, column: column), offset: offset, reason: reason)
        }

        /// The line and column of `offset`, counted on from the previous call so that a located read
        /// stays linear even when the whole document is one long line.
        mutating func location(at offset: Int) -> SourceLocation {
            if offset < countedOffset {
                countedOffset = 0
                countedLine = 1
                countedColumn = 1
            }
            while countedOffset < offset {
                let byte = base[countedOffset]
                if byte == UInt8(ascii: "\n") {
                    countedLine += 1
                    countedColumn = 1
                } else if byte & 0xC0 != 0x80 {
                    countedColumn += 1
                }
                countedOffset += 1
            }
            return SourceLocation(line: countedLine, column: countedColumn)
        }

        /// The error for the byte at `offset`, which is not `expected` (for example "a value").
        @inline(never)
        func unexpected(at offset: Int, expected: StaticString) -> JSONSyntaxError {
            error("unexpected \(describe(base[offset])); expected \(expected)", at: offset)
        }

        /// The error for a literal (`true`, `false`, `null`) at `offset` that is cut short or misspelt.
        @inline(never)
        func literalError(_ word: StaticString, at offset: Int) -> JSONSyntaxError {
            offset + word.utf8CodeUnitCount > count
                ? error("unexpected end of the document; expected '\(word)'", at: offset)
                : error("invalid literal; expected '\(word)'", at: offset)
        }

        /// The error for an array or object nested deeper than ``maximumDepth``.
        @inline(never)
        func tooDeep() -> JSONSyntaxError {
            var error = error("arrays and objects are nested deeper than \(maximumDepth) levels")
            error.exceededLimit = .depth
            return error
        }

        /// The error for a document that holds more than ``maximumValues`` values.
        @inline(never)
        func tooManyValues() -> JSONSyntaxError {
            var error = error("the document holds more than \(maximumValues) values")
            error.exceededLimit = .values
            return error
        }

        func describe(_ byte: UInt8) -> String {
            switch byte {
            case 0x20...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
            default: "byte 0x" + String(byte, radix: 16, uppercase: true)
            }
        }

        // MARK: Whitespace

        mutating func skipByteOrderMark() {
            if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { position = 3 }
        }

        @inline(__always)
        mutating func skipWhitespace() {
            // Most tokens follow each other directly, or after one space (as values after ':').
            guard position < count, base[position] <= 0x20 else { return }
            if base[position] == 0x20, position + 1 < count, base[position + 1] > 0x20 {
                position += 1
                return
            }
            skipWhitespaceRun()
        }

        /// Skips the white space before a member or an element, and returns the indentation to expect
        /// before the next one in the same container (`indentation` is the one before this one).
        @inline(__always)
        mutating func skipIndentation(_ indentation: Indentation) -> Indentation {
            guard position < count, base[position] <= 0x20 else { return indentation }
            let start = position
            // A line break and up to fifteen spaces: two masked words.
            if indentation.length > 0, indentation.length <= 16, start + 17 <= count,
                (JSONReader.loadWord(base + start) ^ 0x2020_2020_2020_200A) & indentation.low == 0,
                (JSONReader.loadWord(base + start + 8) ^ 0x2020_2020_2020_2020) & indentation.high == 0,
                base[start + indentation.length] > 0x20
            {
                position = start + indentation.length
                return indentation
            }
            return skipIndentationRun(indentation)
        }

        /// Skips white space from a byte that is white space, checking deeper indentation than
        /// ``skipIndentation(_:)`` does word by word, and learns the indentation from it.
        mutating func skipIndentationRun(_ indentation: Indentation) -> Indentation {
            let start = position
            let spaces = indentation.length - 1
            if spaces > 15, start + spaces + 17 <= count, base[start] == 0x0A,
                JSONReader.areSpaces(base + start + 1, spaces), base[start + 1 + spaces] > 0x20
            {
                position = start + 1 + spaces
                return indentation
            }
            skipWhitespace()
            return base[start] == 0x0A ? Indentation(spaces: position - start - 1) : .none
        }

        /// Skips white space from a byte that may be white space, eight bytes at a time: the line breaks
        /// and spaces that indent a pretty-printed document.
        mutating func skipWhitespaceRun() {
            var index = position
            let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            while index + 8 <= count {
                let word = JSONReader.loadWord(base + index)
                // A byte's high bit is set in `notSpace` unless the byte is 0x20, in `notNewline` unless it
                // is 0x0A (exact for every byte: the additions never carry into the next one).
                let space = word ^ 0x2020_2020_2020_2020
                let newline = word ^ 0x0A0A_0A0A_0A0A_0A0A
                let notSpace = ((space & low7) &+ low7) | space
                let notNewline = ((newline & low7) &+ low7) | newline
                let other = notSpace & notNewline & 0x8080_8080_8080_8080
                if other == 0 {
                    index += 8
                    continue
                }
                index += other.trailingZeroBitCount &>> 3
                let byte = base[index]
                guard byte == 0x09 || byte == 0x0D else {
                    position = index
                    return
                }
                index += 1
            }
            while index < count {
                switch base[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default:
                    position = index
                    return
                }
            }
            position = index
        }

        // MARK: Values

        @inline(__always)
        mutating func readValue(depth: Int) throws(JSONSyntaxError) -> WidgetValue {
            guard position < count else { throw error("unexpected end of the document; expected a value") }
            valuesLeft &-= 1
            if valuesLeft < 0 { throw tooManyValues() }
            if tracking { map.recordValue(location(at: position), for: ValuePath(components: path)) }
            switch base[position] {
            case UInt8(ascii: "\""):
                return .string(try readString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try readNumber())
            case UInt8(ascii: "{"):
                return try readObject(depth: depth + 1)
            case UInt8(ascii: "["):
                return try readArray(depth: depth + 1)
            case UInt8(ascii: "t"):
                try expectWord("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectWord("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectWord("null")
                return .null
            default:
                throw unexpected(at: position, expected: "a value")
            }
        }

        @inline(__always)
        mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
            let start = position
            let length = word.utf8CodeUnitCount
            guard position + length <= count else {
                throw literalError(word, at: start)
            }
            // The literals have four or five letters: compare the first four and the last four.
            let expected = UnsafeRawPointer(word.utf8Start)
            let found = UnsafeRawPointer(base + position)
            guard found.loadUnaligned(as: UInt32.self) == expected.loadUnaligned(as: UInt32.self),
                found.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
                    == expected.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            else {
                throw literalError(word, at: start)
            }
            position += length
        }

        mutating func readArray(depth: Int) throws(JSONSyntaxError) -> WidgetValue {
            guard depth <= maximumDepth else {
                throw tooDeep()
            }
            position += 1
            var indent = skipIndentation(.none)
            if position < count, base[position] == UInt8(ascii: "]") {
                position += 1
                return .array([])
            }
            let valueBase = values.count
            while true {
                if tracking { path.append(.index(values.count - valueBase)) }
                let element = try readValue(depth: depth)
                values.push(element)
                if tracking { path.removeLast() }
                skipWhitespace()
                guard position < count else {
                    throw error("unexpected end of the document; expected ',' or ']' in an array")
                }
                let byte = base[position]
                position += 1
                if byte == UInt8(ascii: ",") {
                    indent = skipIndentation(indent)
                    continue
                }
                if byte == UInt8(ascii: "]") { return .array(values.popArray(from: valueBase)) }
                throw unexpected(at: position - 1, expected: "',' or ']' in an array")
            }
        }

        mutating func readObject(depth: Int) throws(JSONSyntaxError) -> WidgetValue {
            guard depth <= maximumDepth else {
                throw tooDeep()
            }
            position += 1
            let indent = skipIndentation(.none)
            if position < count, base[position] == UInt8(ascii: "}") {
                position += 1
                return .object(WidgetObject())
            }
            let keyBase = keys.count
            let valueBase = values.count
            try expectMemberName()
            let keyOffset = position
            let key = try readKey()
            if let slot = keyCache.prediction(startingWith: key.record, depth: depth, in: base) {
                return try readPredictedMembers(
                    slot, at: keyOffset, keyBase: keyBase, valueBase: valueBase, depth: depth, indent: indent)
            }
            return try readMembers(
                from: key, at: keyOffset, keyBase: keyBase, valueBase: valueBase, depth: depth, indent: indent,
                filter: KeyFilter())
        }

        /// Reads an object's members while they follow the shape in `slot`, predicted by the first key
        /// (read, starting at `keyOffset`), and the rest one by one when they leave it.
        @inline(never)
        mutating func readPredictedMembers(
            _ predictedSlot: Int, at keyOffset: Int, keyBase: Int, valueBase: Int, depth: Int, indent: Indentation
        ) throws(JSONSyntaxError) -> WidgetValue {
            var keyOffset = keyOffset
            var indent = indent
            var seen = KeyFilter()
            // An earlier object that began with the same key predicts the keys: while they follow its
            // shape in order, each key is one compare against the shape's copy of its text, cannot be a
            // repeat and is not pushed on `keys` (the shape, read in place, holds it). The values go
            // straight into an array of the predicted size. A key that differs (or an early end) may be
            // that of another shape with the same keys before it, which the object then follows. The
            // shape stays pinned until the object is read: after a key that differs from every shape,
            // the stacks hold records that point into its text.
            var next = predictedSlot
            var predictedValues: [WidgetValue] = []
            shapes: while true {
                let slot = next
                keyCache.pin(slot)
                defer { keyCache.unpin(slot) }
                let predicted = keyCache.keyCount(of: slot)
                predictedValues.reserveCapacity(predicted)
                while true {
                    try readColon()
                    if tracking { enterMember(keyCache.keys(of: slot)[predictedValues.count], at: keyOffset) }
                    predictedValues.append(try readValue(depth: depth))
                    if tracking { path.removeLast() }
                    let member = predictedValues.count
                    if try readObjectSeparator() {
                        let shape =
                            member == predicted
                            ? slot : keyCache.alternative(to: slot, after: member, next: nil, readable: 0)
                        if let shape {
                            keyCache.use(shape)
                            return .object(
                                WidgetObject(
                                    uniqueKeys: keyCache.keys(of: shape), values: predictedValues,
                                    index: keyCache.index(of: shape))
                            )
                        }
                        leave(slot, after: member, filter: &seen, values: predictedValues)
                        return closeObject(keyBase: keyBase, valueBase: valueBase, depth: depth, index: nil)
                    }
                    indent = skipIndentation(indent)
                    try expectMemberName()
                    keyOffset = position
                    guard member < predicted, predictedKey(keyCache.record(member, of: slot), at: keyOffset + 1)
                    else {
                        if let other = keyCache.alternative(
                            to: slot, after: member, next: base + keyOffset + 1, readable: count - keyOffset - 1)
                        {
                            position = keyOffset + keyCache.record(member, of: other).length + 2
                            next = other
                            continue shapes
                        }
                        leave(slot, after: member, filter: &seen, values: predictedValues)
                        let key = try readKey()
                        return try readMembers(
                            from: key, at: keyOffset, keyBase: keyBase, valueBase: valueBase, depth: depth,
                            indent: indent, filter: seen)
                    }
                    position = keyOffset + keyCache.record(member, of: slot).length + 2
                }
            }
        }

        /// Reads an object's members from `key` (read, starting at `keyOffset`) one by one, after the
        /// earlier ones (if any) from `keyBase` and `valueBase` on the stacks, whose key hashes are in
        /// `filter`.
        ///
        /// Repeated keys are found by comparing the cheap hashes of the keys read so far; an object with
        /// more members than `linearKeySearchLimit` builds a dictionary from key to position.
        @inline(never)
        mutating func readMembers(
            from key: (string: String, record: KeyRecord), at keyOffset: Int, keyBase: Int, valueBase: Int,
            depth: Int, indent: Indentation, filter: KeyFilter
        ) throws(JSONSyntaxError) -> WidgetValue {
            var key = key
            var keyOffset = keyOffset
            var indent = indent
            var seen = filter
            var index: [String: Int]? = nil
            while true {
                try readColon()
                if tracking { enterMember(key.string, at: keyOffset) }
                let value = try readValue(depth: depth)
                if tracking { path.removeLast() }
                if let existing =
                    if index != nil {
                        index![key.string]
                    } else if seen.insert(key.record.hash) {
                        // Seen before by its hash: compare with the earlier keys.
                        findKey(key.string, key.record, from: keyBase)
                    } else {
                        nil
                    }
                {
                    values[valueBase + existing] = value
                } else {
                    keys.push(key.string)
                    keyRecords.push(key.record)
                    values.push(value)
                    let members = keys.count - keyBase
                    if index != nil {
                        index![keys[keys.count - 1]] = members - 1
                    } else if members > Self.linearKeySearchLimit {
                        var built = [String: Int](minimumCapacity: members * 2)
                        for position in 0..<members { built[keys[keyBase + position]] = position }
                        index = built
                    }
                }
                if try readObjectSeparator() {
                    return closeObject(keyBase: keyBase, valueBase: valueBase, depth: depth, index: index)
                }
                indent = skipIndentation(indent)
                try expectMemberName()
                keyOffset = position
                key = try readKey()
            }
        }

        /// Checks that a member name starts at `position`.
        @inline(__always)
        mutating func expectMemberName() throws(JSONSyntaxError) {
            guard position < count else {
                throw error("unexpected end of the document; expected a member name in quotes")
            }
            guard base[position] == UInt8(ascii: "\"") else {
                throw unexpected(at: position, expected: "a member name in quotes")
            }
        }

        /// Reads the ':' after a member name and the white space around it.
        @inline(__always)
        mutating func readColon() throws(JSONSyntaxError) {
            skipWhitespace()
            guard position < count, base[position] == UInt8(ascii: ":") else {
                if position >= count { throw error("unexpected end of the document; expected ':'") }
                throw unexpected(at: position, expected: "':' after a member name")
            }
            position += 1
            skipWhitespace()
        }

        /// Records where the member `key`, whose name starts at `keyOffset`, is, and makes it the current
        /// path, for a located read.
        mutating func enterMember(_ key: String, at keyOffset: Int) {
            path.append(.key(key))
            map.recordKey(location(at: keyOffset), for: ValuePath(components: path))
        }

        /// Reads the ',' or '}' after a member's value; whether it was '}'.
        @inline(__always)
        mutating func readObjectSeparator() throws(JSONSyntaxError) -> Bool {
            skipWhitespace()
            guard position < count else {
                throw error("unexpected end of the document; expected ',' or '}' in an object")
            }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: ",") { return false }
            if byte == UInt8(ascii: "}") { return true }
            throw unexpected(at: position - 1, expected: "',' or '}' in an object")
        }

        /// The object of the members from `keyBase` and `valueBase` to the tops of the stacks, popping them.
        mutating func closeObject(keyBase: Int, valueBase: Int, depth: Int, index: [String: Int]?) -> WidgetValue {
            let shape = keyCache.keys(popping: &keys, records: &keyRecords, from: keyBase, depth: depth, index: index)
            return .object(
                WidgetObject(uniqueKeys: shape.keys, values: values.popArray(from: valueBase), index: shape.index)
            )
        }

        /// Whether the key at `start` is the predicted key `expected` (not escaped), by its bytes and
        /// the closing quote after them.
        @inline(__always)
        func predictedKey(_ expected: KeyRecord, at start: Int) -> Bool {
            !expected.escaped && start + expected.length < count
                && memoryEqual(expected.text, base + start, expected.length + 1, readable: count - start)
        }

        /// Stops following the shape in `slot` after its first `members` keys: they go on the key stacks
        /// and into the hash filter, and their `values` on the value stack, as members read one by one
        /// would have.
        mutating func leave(_ slot: Int, after members: Int, filter: inout KeyFilter, values read: [WidgetValue]) {
            for value in read { values.push(value) }
            let shapeKeys = keyCache.keys(of: slot)
            for member in 0..<members {
                let record = keyCache.record(member, of: slot)
                keys.push(shapeKeys[member])
                keyRecords.push(record)
                _ = filter.insert(record.hash)
            }
        }

        /// The member position of an earlier key equal to `key` in the object whose keys start at `keyBase`.
        /// Keys without escapes compare by their bytes in the input; only escaped keys compare as strings.
        @inline(__always)
        func findKey(_ key: String, _ record: KeyRecord, from keyBase: Int) -> Int? {
            var member = keyBase
            while member < keys.count {
                let other = keyRecords[member]
                if other.hash == record.hash {
                    if record.escaped || other.escaped {
                        if keys[member] == key { return member - keyBase }
                    } else if other.length == record.length,
                        memoryEqual(other.text, record.text, record.length)
                    {
                        return member - keyBase
                    }
                }
                member += 1
            }
            return nil
        }

        // MARK: Numbers

        @inline(__always)
        func isDigit(_ index: Int) -> Bool {
            index < count && base[index] &- 48 < 10
        }

        @inline(never)
        mutating func readNumber() throws(JSONSyntaxError) -> WidgetNumber {
            let start = position
            var index = position
            if base[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { throw error("a number needs a digit after '-'", at: index) }
            if base[index] == UInt8(ascii: "0") {
                index += 1
                if isDigit(index) { throw error("numbers cannot have leading zeros", at: start) }
            } else {
                index = skipDigits(from: index + 1)
            }
            if index < count, base[index] == UInt8(ascii: ".") {
                index += 1
                guard isDigit(index) else { throw error("a number needs a digit after '.'", at: index) }
                index = skipDigits(from: index + 1)
            }
            if index < count, base[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
                guard isDigit(index) else { throw error("a number needs a digit in its exponent", at: index) }
                index = skipDigits(from: index + 1)
            }
            position = index
            let text = UnsafeBufferPointer(start: base + start, count: index - start)
            return WidgetNumber(unchecked: String(checkedUTF8: text, isASCII: true))
        }

        /// The index of the first byte at or after `index` that is not a digit, or `count`.
        @inline(__always)
        func skipDigits(from index: Int) -> Int {
            var index = index
            // Eight bytes at a time (long ids, fractions): a byte is a digit when its high half is 3 and
            // stays 3 with 6 added.
            let highs: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
            let threes: UInt64 = 0x3030_3030_3030_3030
            while index + 8 <= count {
                let word = JSONReader.loadWord(base + index)
                // A carry out of a byte (0xFA or more, not a digit) only flags bytes above it, so the
                // lowest flag is exact.
                let other = ((word & highs) ^ threes) | (((word &+ 0x0606_0606_0606_0606) & highs) ^ threes)
                if other != 0 { return index &+ other.trailingZeroBitCount &>> 3 }
                index += 8
            }
            while index < count, base[index] &- 48 < 10 { index += 1 }
            return index
        }

        // MARK: Strings

        /// The index of the first `"`, `\` or control character at or after `index` (or `count`), and
        /// whether every byte before it is ASCII.
        @inline(__always)
        func scanPlainText(from index: Int) -> (end: Int, isASCII: Bool) {
            var index = index
            var high: UInt64 = 0
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            // Eight bytes at a time: a byte is special when it is '"', '\' or below 0x20.
            while index + 8 <= count {
                let word = JSONReader.loadWord(base + index)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                let found = special & highs
                // Borrows only ever flag bytes above a truly special one, so the lowest flag is exact.
                if found != 0 {
                    // The bytes below the special one: ones up to its lowest flag.
                    high |= word & ((found & (0 &- found)) &- 1)
                    return (index &+ found.trailingZeroBitCount &>> 3, high & highs == 0)
                }
                high |= word
                index += 8
            }
            while index < count {
                let byte = base[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                high |= UInt64(byte)
                index += 1
            }
            return (index, high & highs == 0)
        }

        /// Reads an object key, sharing the storage of keys seen before when it has no escapes.
        @inline(__always)
        mutating func readKey() throws(JSONSyntaxError) -> (string: String, record: KeyRecord) {
            let start = position + 1
            let (end, isASCII) = scanPlainText(from: start)
            if end < count, base[end] == UInt8(ascii: "\"") {
                position = end + 1
                let hash = JSONKeyCache.hash(base + start, count: end - start)
                let string = keyCache.string(base, from: start, to: end, isASCII: isASCII, hash: hash, limit: count)
                return (string, KeyRecord(text: base + start, length: end - start, hash: hash, escaped: false))
            }
            var string = try readString()
            let hash = string.withUTF8 { utf8 in
                utf8.isEmpty ? 0 : JSONKeyCache.hash(utf8.baseAddress!, count: utf8.count)
            }
            return (string, KeyRecord(text: base + start, length: position - start - 1, hash: hash, escaped: true))
        }

        @inline(__always)
        mutating func readString() throws(JSONSyntaxError) -> String {
            let start = position + 1
            let (index, isASCII) = scanPlainText(from: start)
            if index < count, base[index] == UInt8(ascii: "\"") {
                position = index + 1
                let length = index - start
                if length >= JSONStringCache.minimumLength { return longPlainString(from: start, length: length, isASCII: isASCII) }
                return JSONReader.plainString(base + start, count: length, isASCII: isASCII)
            }
            return try readEscapedString(from: start, plainUpTo: index, isASCII: isASCII)
        }

        /// The string of the `length` escape-free bytes (at least ``JSONStringCache/minimumLength``) at
        /// `start`, from the cache of long strings when the same text was read before.
        @inline(never)
        mutating func longPlainString(from start: Int, length: Int, isASCII: Bool) -> String {
            let (cached, slot) = strings.string(base, from: start, length: length)
            if let cached { return cached }
            let string = JSONReader.plainString(base + start, count: length, isASCII: isASCII)
            strings.keep(string, in: slot, from: start, length: length)
            return string
        }

        /// Reads the rest of a string that has escapes (or is broken) from `index`, the first byte after
        /// the plain text that starts at `start` (all ASCII when `isASCII`).
        mutating func readEscapedString(
            from start: Int, plainUpTo index: Int, isASCII: Bool
        ) throws(JSONSyntaxError) -> String {
            var index = index
            var isASCII = isASCII
            // Unescaped text collects on one stack reused by every string of the document.
            unescaped.pop(from: 0)
            unescaped.append(contentsOf: UnsafeBufferPointer(start: base + start, count: index - start))
            while index < count {
                let byte = base[index]
                switch byte {
                case UInt8(ascii: "\""):
                    position = index + 1
                    return unescaped.withElements(from: 0) { text in
                        // Escapes make well-formed UTF-8: only the text between them needs checking.
                        if isASCII || JSONReader.isValidUTF8(text) { return String(checkedUTF8: text, isASCII: isASCII) }
                        return String(decoding: text, as: UTF8.self)
                    }
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < count else { break }
                    switch base[index] {
                    case UInt8(ascii: "\""): unescaped.push(0x22)
                    case UInt8(ascii: "\\"): unescaped.push(0x5C)
                    case UInt8(ascii: "/"): unescaped.push(0x2F)
                    case UInt8(ascii: "b"): unescaped.push(0x08)
                    case UInt8(ascii: "f"): unescaped.push(0x0C)
                    case UInt8(ascii: "n"): unescaped.push(0x0A)
                    case UInt8(ascii: "r"): unescaped.push(0x0D)
                    case UInt8(ascii: "t"): unescaped.push(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try readHex4(at: index + 1)
                        index += 4
                        if scalar >= 0xD800, scalar < 0xDC00,
                            index + 6 < count,
                            base[index + 1] == UInt8(ascii: "\\"), base[index + 2] == UInt8(ascii: "u"),
                            let low = try? readHex4(at: index + 3), low >= 0xDC00, low < 0xE000
                        {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            index += 6
                        }
                        // A lone surrogate becomes U+FFFD.
                        let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                        if character.value >= 0x80 { isASCII = false }
                        appendUTF8(character)
                    default:
                        throw error(
                            "invalid escape '\\\(Character(Unicode.Scalar(base[index])))' in a string",
                            at: index - 1
                        )
                    }
                    index += 1
                case 0..<0x20:
                    throw error("control character \(describe(byte)) in a string; escape it, e.g. \\n", at: index)
                default:
                    let (next, plainIsASCII) = scanPlainText(from: index + 1)
                    if byte >= 0x80 || !plainIsASCII { isASCII = false }
                    unescaped.append(contentsOf: UnsafeBufferPointer(start: base + index, count: next - index))
                    index = next
                }
            }
            throw error("unexpected end of the document inside a string", at: count)
        }

        @inline(__always)
        mutating func appendUTF8(_ scalar: Unicode.Scalar) {
            let value = scalar.value
            switch value {
            case 0..<0x80:
                unescaped.push(UInt8(value))
            case 0x80..<0x800:
                unescaped.push(UInt8(0xC0 | value >> 6))
                unescaped.push(UInt8(0x80 | value & 0x3F))
            case 0x800..<0x10000:
                unescaped.push(UInt8(0xE0 | value >> 12))
                unescaped.push(UInt8(0x80 | (value >> 6) & 0x3F))
                unescaped.push(UInt8(0x80 | value & 0x3F))
            default:
                unescaped.push(UInt8(0xF0 | value >> 18))
                unescaped.push(UInt8(0x80 | (value >> 12) & 0x3F))
                unescaped.push(UInt8(0x80 | (value >> 6) & 0x3F))
                unescaped.push(UInt8(0x80 | value & 0x3F))
            }
        }

        func readHex4(at offset: Int) throws(JSONSyntaxError) -> UInt32 {
            guard offset + 4 <= count else { throw error("a \\u escape needs four hex digits", at: offset) }
            var value: UInt32 = 0
            for index in offset..<offset + 4 {
                let byte = base[index]
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
