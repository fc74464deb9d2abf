import Foundation
import WidgetJSON
import WidgetLiquid

/// The decoder of one value. Types of this module that read a definition use it directly
/// (``ValueDecoder/init(_:)``) to record problems and read on.
struct ValueDecoder: Decoder {
    let value: WidgetValue
    let node: CodingPathNode
    let tracker: KeyTracker

    init(value: WidgetValue, node: CodingPathNode, tracker: KeyTracker) {
        self.value = value
        self.node = node
        self.tracker = tracker
    }

    /// `decoder` as the options decoder.
    ///
    /// - Throws: ``OptionsError`` when it is another decoder: a definition is read with ``OptionsDecoder``.
    init(_ decoder: any Decoder) throws {
        guard let decoder = decoder as? ValueDecoder else {
            throw OptionsError(path: ValuePath(codingPath: decoder.codingPath), message: "a definition is read with OptionsDecoder")
        }
        self = decoder
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var path: ValuePath { node.path }
    var userInfo: [CodingUserInfoKey: Any] { tracker.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "found \(value.typeName)")
            )
        }
        let rules = KeyRules.of(Key.self)
        let container = tracker.open(object, at: node, keyType: Key.self, described: rules != nil)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, container: container, rules: rules))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(codingPath: codingPath, debugDescription: "found \(value.typeName)")
            )
        }
        return UnkeyedContainer(decoder: self, array: array)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(decoder: self)
    }

    func child(_ value: WidgetValue, key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, node: CodingPathNode(parent: node, step: .key(key)), tracker: tracker)
    }

    func child(_ value: WidgetValue, index: Int) -> ValueDecoder {
        ValueDecoder(value: value, node: CodingPathNode(parent: node, step: .index(index)), tracker: tracker)
    }

    // MARK: Reading on past problems

    /// The value, whole: its members are the reader's, not checked one by one.
    func claim() -> WidgetValue {
        if case .object = value { tracker.claim(node) }
        return value
    }

    /// Runs `body`, which decodes one member. When the decoder reads on past problems
    /// (``OptionsDecoder/decode(_:from:problems:)``), a problem it throws is recorded and `nil` returned;
    /// otherwise the problem is thrown.
    func recovering<T>(_ body: () throws -> T?) throws -> T? {
        guard tracker.collects else { return try body() }
        let mark = tracker.containers.count
        do {
            return try body()
        } catch {
            tracker.record(error, abandoningFrom: mark)
            return nil
        }
    }

    /// Reports `problem`: recorded when the decoder reads on past problems, thrown otherwise.
    func report(_ problem: OptionsError) throws {
        guard tracker.collects else { throw problem }
        tracker.problems.append(problem)
    }

    // MARK: Scalars

    func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(value.typeName)"))
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    func decodeString() throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self) }
        return string
    }

    func decodeNumber() throws -> WidgetNumber {
        guard case .number(let number) = value else { throw mismatch(Double.self) }
        return number
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(Int.self) }
        guard let int = number.int, let result = T(exactly: int) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "\(number) is not a whole number in range")
            )
        }
        return result
    }

    /// What `Template.init(from:)` does with this decoder, without going through a single-value
    /// container and finding the template cache again: the same template, the same errors.
    func decodeTemplate() throws -> Template {
        let source = try decodeString()
        do throws(ExpressionError) {
            if let cache = tracker.templates { return try cache.template(source) }
            return try Template(source, filters: userInfo[FilterRegistry.userInfoKey] as? FilterRegistry ?? .standard)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "\(error)", underlyingError: error))
        }
    }

    /// What `[String]`'s `init(from:)` does with this decoder: each element a string, else the error of
    /// the first that is not, at its index.
    func decodeStrings() throws -> [String] {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "found \(value.typeName)"))
        }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let string) = element else { throw child(element, index: index).mismatch(String.self) }
            strings.append(string)
        }
        return strings
    }

    /// What `[String: Template]`'s `init(from:)` does with this decoder: an object whose members are all
    /// read (so none is unknown), each a template, else the error of the first that is not, at its key.
    func decodeTemplateMap() throws -> [String: Template] {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "found \(value.typeName)"))
        }
        var templates: [String: Template] = [:]
        for (key, member) in zip(object.keys, object.values) {
            let decoder = child(member, key: MemberKey(stringValue: key))
            if member.isNull {
                throw DecodingError.valueNotFound(Template.self, .init(codingPath: decoder.codingPath, debugDescription: "null"))
            }
            templates[key] = try decoder.decodeTemplate()
        }
        return templates
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return try decodeString() as! T }
        // A free-form value: any members are welcome.
        if T.self == WidgetValue.self { return claim() as! T }
        if T.self == Int.self { return try decodeInteger(Int.self) as! T }
        if T.self == Bool.self { return try decodeBool() as! T }
        if T.self == Template.self { return try decodeTemplate() as! T }
        if T.self == WidgetNumber.self { return try decodeNumber() as! T }
        if T.self == Decimal.self {
            guard let decimal = try decodeNumber().decimal else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number out of range"))
            }
            return decimal as! T
        }
        if T.self == Date.self {
            let text = try decodeString()
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "\"\(text)\" is not an ISO 8601 date; write e.g. \"2026-11-22T08:00:00Z\""
                    )
                )
            }
            return date as! T
        }
        if T.self == URL.self {
            let text = try decodeString()
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\"\(text)\" is not a URL"))
            }
            return url as! T
        }
        // The collections and expressions options use most, read in place rather than through the
        // standard library's generic `init(from:)` and this decoder's containers: the same values, the same
        // errors at the same paths.
        if T.self == JSONPath.self {
            let text = try decodeString()
            // Through the cache, as templates are: a definition's paths are mostly the same few.
            if let cache = tracker.templates {
                return try ExpressionError.decode(text, codingPath: codingPath, what: "JSONPath", cache.jsonPath) as! T
            }
            return try JSONPath.decoded(text, codingPath: codingPath) as! T
        }
        if T.self == [String: Template].self { return try decodeTemplateMap() as! T }
        if T.self == TemplateTree.self {
            return try TemplateTree(decoded: claim(), cache: tracker.templates, filters: tracker.filters, codingPath: codingPath) as! T
        }
        if T.self == [String].self { return try decodeStrings() as! T }
        if T.self == WidgetDuration.self { return try WidgetDuration.decoded(try decodeString(), codingPath: codingPath) as! T }
        let result = try T(from: self)
        // A type that never opened this object (an options type without properties) asked for no keys, so
        // every member is unknown.
        if case .object(let object) = value, node.container == nil, !node.claimed {
            _ = tracker.open(object, at: node, keyType: AnyCodingKey.self, described: false)
        }
        return result
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let container: KeyTracker.Container
    /// The defaults, bounds and choices `Key` declares, when it declares any.
    let rules: KeyRules?

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        container.dynamic = true
        return container.object.keys.compactMap { Key(stringValue: $0) }
    }

    /// The member `key`, asked for (whether or not it is there).
    private func lookUp(_ key: Key) -> WidgetValue? {
        container.lookUp(key.stringValue)
    }

    /// The member `key`, or its declared default when it is absent or null.
    ///
    /// - Throws: `DecodingError.keyNotFound` when it is absent with no default; ``OptionsError`` when it
    ///   is outside its declared bounds or choices.
    private func required(_ key: Key) throws -> WidgetValue {
        let value = lookUp(key)
        if let description = rules?.description(of: key.stringValue, for: value) {
            if value?.isNull ?? true, let defaultValue = description.defaultValue { return defaultValue }
            if let value { try check(value, against: description, key) }
        }
        guard let value else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "missing key '\(key.stringValue)'")
            )
        }
        return value
    }

    /// Throws the sentence for `value` when `description`'s bounds or choices do not allow it.
    private func check(_ value: WidgetValue, against description: KeyDescription, _ key: Key) throws {
        guard let problem = description.violation(of: value, key: key.stringValue) else { return }
        throw OptionsError(path: decoder.child(value, key: key).path, message: problem)
    }

    func contains(_ key: Key) -> Bool {
        lookUp(key) != nil
    }

    func member(_ key: Key) throws -> ValueDecoder {
        decoder.child(try required(key), key: key)
    }

    /// The member `key` when it is there and not null, within its declared bounds and choices.
    private func present(_ key: Key) throws -> WidgetValue? {
        guard let value = lookUp(key), !value.isNull else { return nil }
        if let description = rules?.description(of: key.stringValue, for: value) { try check(value, against: description, key) }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        lookUp(key)?.isNull ?? true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try required(key)
        if let leaf = leaf(value, as: type) { return leaf }
        let child = decoder.child(value, key: key)
        if value.isNull, T.self != WidgetValue.self {
            throw DecodingError.valueNotFound(type, .init(codingPath: child.codingPath, debugDescription: "null"))
        }
        return try child.decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try present(key) else { return nil }
        if let leaf = leaf(value, as: type) { return leaf }
        return try decoder.child(value, key: key).decode(type)
    }

    /// The member `value` as `T` when it is one of the values options hold most (a template, a JSONPath,
    /// a duration) written as expected, read in place without a member decoder; `nil` for anything else,
    /// a problem included, which the member decoder then reads and reports.
    private func leaf<T>(_ value: WidgetValue, as type: T.Type) -> T? {
        guard case .string(let text) = value else { return nil }
        // Each cast is of a value to its own type, as the check before it says.
        if T.self == Template.self {
            guard let templates = decoder.tracker.templates, let template = try? templates.template(text) else { return nil }
            return unsafeBitCast(template, to: T.self)
        }
        if T.self == JSONPath.self {
            guard let templates = decoder.tracker.templates, let path = try? templates.jsonPath(text) else { return nil }
            return unsafeBitCast(path, to: T.self)
        }
        if T.self == WidgetDuration.self {
            guard let duration = WidgetDuration(text) else { return nil }
            return unsafeBitCast(duration, to: T.self)
        }
        return nil
    }

    // Scalars are read in place; a member decoder (for its path) is made only for a problem.

    private func string(_ value: WidgetValue, _ key: Key) throws -> String {
        if case .string(let text) = value { return text }
        return try decoder.child(value, key: key).decodeString()
    }

    private func bool(_ value: WidgetValue, _ key: Key) throws -> Bool {
        if case .bool(let flag) = value { return flag }
        return try decoder.child(value, key: key).decodeBool()
    }

    private func integer<T: FixedWidthInteger>(_ value: WidgetValue, _ key: Key, as type: T.Type) throws -> T {
        if case .number(let number) = value, let int = number.int, let result = T(exactly: int) { return result }
        return try decoder.child(value, key: key).decodeInteger(type)
    }

    private func number(_ value: WidgetValue, _ key: Key) throws -> WidgetNumber {
        if case .number(let number) = value { return number }
        return try decoder.child(value, key: key).decodeNumber()
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try string($0, key) } }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try bool($0, key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try integer($0, key, as: type) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try number($0, key).double } }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(try required(key), key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(try required(key), key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try number(try required(key), key).double }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try number(try required(key), key).double) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(try required(key), key, as: type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(try required(key), key, as: type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(try required(key), key, as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(try required(key), key, as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(try required(key), key, as: type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let array: [WidgetValue]
    var currentIndex = 0

    init(decoder: ValueDecoder, array: [WidgetValue]) {
        self.decoder = decoder
        self.array = array
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                WidgetValue.self,
                .init(codingPath: codingPath, debugDescription: "the array has too few elements")
            )
        }
        defer { currentIndex += 1 }
        return decoder.child(array[currentIndex], index: currentIndex)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeNumber().double }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeNumber().double }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeNumber().double) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

/// The key of a member of an object decoded as a dictionary, as the standard library makes it: a name that
/// is a whole number is also an index (so paths show `[404]` for a member named "404").
private struct MemberKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = Int(stringValue)
    }

    init?(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}
