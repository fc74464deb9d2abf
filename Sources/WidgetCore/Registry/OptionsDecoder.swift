import Foundation

/// Decodes a stage's `Decodable` options from a ``WidgetValue``, strictly.
///
/// Beyond what `Decodable` checks, the decoder rejects object members that the options type never asked
/// for, with a "did you mean" hint drawn from the keys it did ask for. Numbers decode exactly into
/// integer types (a fraction is an error, not truncated). Errors become ``OptionsError``s that carry the
/// JSON path of the bad value.
///
/// ```swift
/// struct Options: Decodable { var count: Int; var offset: Int? }
/// let options = try OptionsDecoder().decode(Options.self, from: ["count": 4, "ofset": 1])
/// // throws: $.ofset: unknown key 'ofset'; did you mean 'offset'?
/// ```
public struct OptionsDecoder: Sendable {
    /// Values handed to `Decodable` implementations through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes `type` from `value`.
    ///
    /// - Throws: ``OptionsError`` naming the path of the first bad or unknown value.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue) throws(OptionsError) -> T {
        let tracker = KeyTracker()
        let decoder = ValueDecoder(value: value, codingPath: [], tracker: tracker, userInfo: userInfo)
        let result: T
        do {
            result = try decoder.decode(T.self)
        } catch let error as DecodingError {
            // A required key that is missing because it is misspelt: name the misspelling instead.
            if case .keyNotFound(let key, let context) = error,
                let misspelt = tracker.misspelling(of: key.stringValue, in: context.codingPath)
            {
                throw misspelt
            }
            throw OptionsError(decodingError: error)
        } catch let error as OptionsError {
            throw error
        } catch let error as ExpressionError {
            throw OptionsError(path: .root, message: error.description, expressionColumn: error.column)
        } catch let error as StageError {
            throw OptionsError(path: .root, message: error.message)
        } catch {
            throw OptionsError(path: .root, message: "\(error)")
        }
        if let unknown = tracker.firstUnknownKey() { throw unknown }
        return result
    }
}

extension OptionsError {
    /// Converts a `DecodingError` into a sentence with a path.
    public init(decodingError error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            let path = ValuePath(codingPath: context.codingPath)
            self.init(path: path, message: "missing required key '\(key.stringValue)'")
        case .valueNotFound(let type, let context):
            self.init(
                path: ValuePath(codingPath: context.codingPath),
                message: "expected \(OptionsError.describe(type)), found null"
            )
        case .typeMismatch(let type, let context):
            let found = context.debugDescription.hasPrefix("found ") ? ", \(context.debugDescription)" : ""
            self.init(
                path: ValuePath(codingPath: context.codingPath),
                message: "expected \(OptionsError.describe(type))\(found)"
            )
        case .dataCorrupted(let context):
            let path = ValuePath(codingPath: context.codingPath)
            if let expression = context.underlyingError as? ExpressionError {
                self.init(path: path, message: expression.description, expressionColumn: expression.column)
            } else if let options = context.underlyingError as? OptionsError {
                self = options
                self.path = path.appending(options.path)
            } else {
                self.init(path: path, message: context.debugDescription)
            }
        @unknown default:
            self.init(path: .root, message: "\(error)")
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "a whole number"
        case is Double.Type, is Float.Type, is Decimal.Type: "a number"
        case is [Any].Type: "an array"
        default:
            if "\(type)".hasPrefix("Array<") { "an array" }
            else if "\(type)".hasPrefix("Dictionary<") { "an object" }
            else { "a value of type \(type)" }
        }
    }
}

// MARK: - Key tracking

/// Records, for each object the options type opened, which keys it asked for.
private final class KeyTracker: @unchecked Sendable {
    // Only used during one synchronous decode on one thread.
    struct Container {
        var path: [any CodingKey]
        var object: WidgetObject
        var asked: Set<String> = []
        var dynamic = false
    }

    var containers: [Container] = []
    var byPath: [String: Int] = [:]

    @discardableResult
    func open(_ object: WidgetObject, at path: [any CodingKey]) -> Int {
        let key = ValuePath(codingPath: path).description
        if let id = byPath[key] { return id }
        containers.append(Container(path: path, object: object))
        byPath[key] = containers.count - 1
        return containers.count - 1
    }

    func ask(_ key: String, in id: Int) {
        containers[id].asked.insert(key)
    }

    func markDynamic(_ id: Int) {
        containers[id].dynamic = true
    }

    /// An unknown key of the object at `path` that is a likely typo of the missing key `missing`.
    func misspelling(of missing: String, in path: [any CodingKey]) -> OptionsError? {
        guard let id = byPath[ValuePath(codingPath: path).description] else { return nil }
        let container = containers[id]
        guard !container.dynamic else { return nil }
        for key in container.object.keys where !container.asked.contains(key) {
            guard Suggestion.closest(to: key, among: [missing]) != nil else { continue }
            return OptionsError(
                path: ValuePath(codingPath: container.path).appending(key),
                message: "unknown key '\(key)'; did you mean '\(missing)'?",
                pointsAtKey: true
            )
        }
        return nil
    }

    func firstUnknownKey() -> OptionsError? {
        for (_, id) in byPath.sorted(by: { $0.key < $1.key }) {
            let container = containers[id]
            guard !container.dynamic else { continue }
            for key in container.object.keys where !container.asked.contains(key) {
                let hint = Suggestion.hint(for: key, among: container.asked.sorted())
                let known = container.asked.sorted().map { "'\($0)'" }.joined(separator: ", ")
                let fix = hint ?? (known.isEmpty ? "this object takes no keys" : "known keys: \(known)")
                return OptionsError(
                    path: ValuePath(codingPath: container.path).appending(key),
                    message: "unknown key '\(key)'; \(fix)",
                    pointsAtKey: true
                )
            }
        }
        return nil
    }
}

// MARK: - Decoder

private struct ValueDecoder: Decoder {
    let value: WidgetValue
    let codingPath: [any CodingKey]
    let tracker: KeyTracker
    let options: [CodingUserInfoKey: any Sendable]

    init(value: WidgetValue, codingPath: [any CodingKey], tracker: KeyTracker, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.codingPath = codingPath
        self.tracker = tracker
        self.options = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { options }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "found \(value.typeName)")
            )
        }
        let id = tracker.open(object, at: codingPath)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: object, id: id))
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
        ValueDecoder(value: value, codingPath: codingPath + [key], tracker: tracker, userInfo: options)
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

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is WidgetValue.Type:
            // A free-form value: any members are welcome.
            if case .object(let object) = value { tracker.markDynamic(tracker.open(object, at: codingPath)) }
            return value as! T
        case is WidgetNumber.Type:
            return try decodeNumber() as! T
        case is Decimal.Type:
            guard let decimal = try decodeNumber().decimal else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number out of range"))
            }
            return decimal as! T
        case is Date.Type:
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
        case is URL.Type:
            let text = try decodeString()
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath, debugDescription: "\"\(text)\" is not a URL")
                )
            }
            return url as! T
        default:
            let result = try T(from: self)
            // A type that never opened this object (an options type without properties) asked for no
            // keys, so every member is unknown.
            if case .object(let object) = value { tracker.open(object, at: codingPath) }
            return result
        }
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: WidgetObject
    let id: Int

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        decoder.tracker.markDynamic(id)
        return object.keys.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        decoder.tracker.ask(key.stringValue, in: id)
        return object[key.stringValue] != nil
    }

    func member(_ key: Key) throws -> ValueDecoder {
        decoder.tracker.ask(key.stringValue, in: id)
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "missing key '\(key.stringValue)'")
            )
        }
        return decoder.child(value, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.tracker.ask(key.stringValue, in: id)
        return object[key.stringValue]?.isNull ?? true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let child = try member(key)
        if child.value.isNull, !(T.self is WidgetValue.Type) {
            throw DecodingError.valueNotFound(type, .init(codingPath: child.codingPath, debugDescription: "null"))
        }
        return try child.decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        decoder.tracker.ask(key.stringValue, in: id)
        guard let value = object[key.stringValue], !value.isNull else { return nil }
        return try decoder.child(value, key: key).decode(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decodeNumber().double }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try member(key).decodeNumber().double) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).decodeInteger(type) }

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
        return decoder.child(array[currentIndex], key: AnyCodingKey(index: currentIndex))
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
