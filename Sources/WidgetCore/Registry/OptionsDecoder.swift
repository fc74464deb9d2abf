import Foundation

/// Decodes a stage's `Decodable` options — and a whole widget definition — from a ``WidgetValue``, strictly.
///
/// Beyond what `Decodable` checks, the decoder rejects object members that the type never asked for, with a
/// "did you mean" hint drawn from the keys it did ask for (in the order a ``DescribedKey`` type lists them,
/// else sorted). Numbers decode exactly into integer types (a fraction is an error, not truncated). Errors
/// become ``OptionsError``s that carry the JSON path of the bad value.
///
/// ```swift
/// struct Options: Decodable { var count: Int; var offset: Int? }
/// let options = try OptionsDecoder().decode(Options.self, from: ["count": 4, "ofset": 1])
/// // throws: $.ofset: unknown key 'ofset'; did you mean 'offset'?
/// ```
///
/// ``decode(_:from:problems:)`` reads on past problems instead of stopping at the first: a type that
/// reads its members with ``DescribedMembers`` reports each bad member and goes on, so one read of a
/// definition reports every problem in it.
public struct OptionsDecoder: Sendable {
    /// Values handed to `Decodable` implementations through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// More keys to suggest when a key of the top-level object is unknown: those its owner reads beside
    /// the options (a source's `when`), which the options type never asks for. Not listed as known keys.
    public var hintKeys: [String] = []

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes `type` from `value`.
    ///
    /// - Throws: ``OptionsError`` naming the path of the first bad or unknown value.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue) throws(OptionsError) -> T {
        let tracker = KeyTracker(userInfo: userInfo, collects: false, hintKeys: hintKeys)
        let result: T
        do {
            result = try ValueDecoder(value: value, node: nil, tracker: tracker).decode(T.self)
        } catch {
            throw tracker.problem(from: error)
        }
        if let unknown = tracker.unknownKeys(all: false).first { throw unknown }
        return result
    }

    /// Decodes `type` from `value`, appending every problem to `problems`: the bad members a type reports
    /// through ``DescribedMembers`` (reading on past each), then every unknown key.
    ///
    /// - Returns: the value, or `nil` when a problem left it impossible to make.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue, problems: inout [OptionsError]) -> T? {
        let tracker = KeyTracker(userInfo: userInfo, collects: true, hintKeys: hintKeys)
        var result: T?
        do {
            result = try ValueDecoder(value: value, node: nil, tracker: tracker).decode(T.self)
        } catch {
            tracker.record(error, abandoningFrom: 0)
        }
        problems += tracker.problems
        problems += tracker.unknownKeys(all: true)
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

// MARK: - Recording problems

extension Decoder {
    /// Runs `body`, which decodes one member. When the decoder reads on past problems
    /// (``OptionsDecoder/decode(_:from:problems:)``), a problem it throws is recorded and `nil` returned;
    /// otherwise the problem is thrown.
    func recovering<T>(_ body: () throws -> T?) throws -> T? {
        guard let decoder = self as? ValueDecoder, decoder.tracker.collects else { return try body() }
        let mark = decoder.tracker.containers.count
        do {
            return try body()
        } catch {
            decoder.tracker.record(error, abandoningFrom: mark)
            return nil
        }
    }

    /// Reports `problem`: recorded when the decoder reads on past problems, thrown otherwise.
    func report(_ problem: OptionsError) throws {
        guard let decoder = self as? ValueDecoder, decoder.tracker.collects else { throw problem }
        decoder.tracker.problems.append(problem)
    }
}

// MARK: - Key tracking

/// Where a decoder is: a key or index below its parent. Built once per member, turned into a coding path
/// only when a problem needs one.
final class CodingPathNode {
    let parent: CodingPathNode?
    let key: any CodingKey
    /// The container opened on the object at this place, so that opening it again asks into the same one.
    var container: Int?

    init(parent: CodingPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    static func codingPath(_ node: CodingPathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = node
        while let node = current {
            keys.append(node.key)
            current = node.parent
        }
        return keys.reversed()
    }
}

/// Records, for each object the decoded type opened, which keys it asked for; and, when reading on past
/// problems, the problems so far.
final class KeyTracker: @unchecked Sendable {
    // Only used during one synchronous decode on one thread.
    struct Container {
        var node: CodingPathNode?
        var object: WidgetObject
        var keyType: any CodingKey.Type
        var asked: [String] = []
        /// Keys the type enumerated (`allKeys`), read as a whole, or abandoned after a problem: not checked.
        var dynamic = false
    }

    let userInfo: [CodingUserInfoKey: Any]
    let collects: Bool
    let hintKeys: [String]
    var containers: [Container] = []
    var problems: [OptionsError] = []
    /// Unknown keys already reported as the misspelling of a missing key, as `path/key`.
    private var reported: Set<String> = []
    /// The root's container when the root is an object (the root has no path node to remember it).
    private var rootContainer: Int?

    init(userInfo: [CodingUserInfoKey: any Sendable], collects: Bool, hintKeys: [String]) {
        self.hintKeys = hintKeys
        var plain: [CodingUserInfoKey: Any] = [:]
        for (key, value) in userInfo { plain[key] = value }
        self.userInfo = plain
        self.collects = collects
    }

    func open(_ object: WidgetObject, at node: CodingPathNode?, keyType: any CodingKey.Type) -> Int {
        if let id = node?.container ?? (node == nil ? rootContainer : nil) { return id }
        containers.append(Container(node: node, object: object, keyType: keyType))
        let id = containers.count - 1
        if let node { node.container = id } else { rootContainer = id }
        return id
    }

    /// Converts whatever a `Decodable` implementation threw into an ``OptionsError``.
    func problem(from error: any Error) -> OptionsError {
        switch error {
        case let error as OptionsError:
            return error
        case let error as DecodingError:
            // A required key that is missing because it is misspelt: name the misspelling instead.
            if case .keyNotFound(let key, let context) = error,
                let misspelt = misspelling(of: key.stringValue, in: context.codingPath)
            {
                return misspelt
            }
            return OptionsError(decodingError: error)
        case let error as ExpressionError:
            return OptionsError(path: .root, message: error.description, expressionColumn: error.column)
        case let error as StageError:
            return OptionsError(path: .root, message: error.message)
        default:
            return OptionsError(path: .root, message: "\(error)")
        }
    }

    /// Records a problem thrown while decoding one member; the objects opened since `mark` were read only
    /// in part, so their unasked keys are not reported.
    func record(_ error: any Error, abandoningFrom mark: Int) {
        problems.append(problem(from: error))
        for id in mark..<containers.count { containers[id].dynamic = true }
    }

    /// An unknown key of the object at `path` that is a likely typo of the missing key `missing`.
    private func misspelling(of missing: String, in codingPath: [any CodingKey]) -> OptionsError? {
        let wanted = ValuePath(codingPath: codingPath)
        guard let container = containers.first(where: { !$0.dynamic && path(of: $0) == wanted }) else { return nil }
        for key in container.object.keys where !container.asked.contains(key) {
            guard Suggestion.closest(to: key, among: [missing]) != nil else { continue }
            reported.insert("\(wanted)/\(key)")
            return OptionsError(
                path: wanted.appending(key),
                message: "unknown key '\(key)'; did you mean '\(missing)'?",
                pointsAtKey: true
            )
        }
        return nil
    }

    private func path(of container: Container) -> ValuePath {
        ValuePath(codingPath: CodingPathNode.codingPath(container.node))
    }

    /// The keys no type asked for: the first by path, or every one.
    func unknownKeys(all: Bool) -> [OptionsError] {
        var found: [(path: String, error: OptionsError)] = []
        var seen: Set<String> = []
        for container in containers where !container.dynamic {
            let unknown = container.object.keys.filter { !container.asked.contains($0) }
            guard !unknown.isEmpty else { continue }
            let path = path(of: container)
            let known = knownKeys(of: container)
            for key in unknown {
                let place = "\(path)/\(key)"
                guard !reported.contains(place), seen.insert(place).inserted else { continue }
                let hint = Suggestion.hint(for: key, among: container.node == nil ? known + hintKeys : known)
                let list = known.filter { !$0.hasPrefix("$") }.map { "'\($0)'" }.joined(separator: ", ")
                let fix = hint ?? (list.isEmpty ? "this object takes no keys" : "known keys: \(list)")
                let error = OptionsError(path: path.appending(key), message: "unknown key '\(key)'; \(fix)", pointsAtKey: true)
                found.append((path.description, error))
            }
        }
        guard !all else { return found.map(\.error) }
        return found.min { $0.path < $1.path }.map { [$0.error] } ?? []
    }

    /// The keys the object takes: as a ``DescribedKey`` type lists them, else those asked for, sorted.
    private func knownKeys(of container: Container) -> [String] {
        func described<Key: DescribedKey>(_ type: Key.Type) -> [String] { Key.allCases.map(\.stringValue) }
        if let type = container.keyType as? any DescribedKey.Type { return described(type) }
        return Set(container.asked).sorted()
    }
}

// MARK: - Decoder

struct ValueDecoder: Decoder {
    let value: WidgetValue
    let node: CodingPathNode?
    let tracker: KeyTracker

    var codingPath: [any CodingKey] { CodingPathNode.codingPath(node) }
    var userInfo: [CodingUserInfoKey: Any] { tracker.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "found \(value.typeName)")
            )
        }
        let id = tracker.open(object, at: node, keyType: Key.self)
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
        ValueDecoder(value: value, node: CodingPathNode(parent: node, key: key), tracker: tracker)
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
        if T.self == String.self { return try decodeString() as! T }
        if T.self == WidgetValue.self {
            // A free-form value: any members are welcome.
            if case .object(let object) = value {
                tracker.containers[tracker.open(object, at: node, keyType: AnyCodingKey.self)].dynamic = true
            }
            return value as! T
        }
        if T.self == Int.self { return try decodeInteger(Int.self) as! T }
        if T.self == Bool.self { return try decodeBool() as! T }
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
        let result = try T(from: self)
        // A type that never opened this object (an options type without properties) asked for no keys, so
        // every member is unknown.
        if case .object(let object) = value { _ = tracker.open(object, at: node, keyType: AnyCodingKey.self) }
        return result
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: WidgetObject
    let id: Int

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        decoder.tracker.containers[id].dynamic = true
        return object.keys.compactMap { Key(stringValue: $0) }
    }

    /// The member `key`, asked for (whether or not it is there).
    private func lookUp(_ key: Key) -> WidgetValue? {
        let name = key.stringValue
        decoder.tracker.containers[id].asked.append(name)
        return object[name]
    }

    func contains(_ key: Key) -> Bool {
        lookUp(key) != nil
    }

    func member(_ key: Key) throws -> ValueDecoder {
        guard let value = lookUp(key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "missing key '\(key.stringValue)'")
            )
        }
        return decoder.child(value, key: key)
    }

    /// The member `key` when it is there and not null.
    private func present(_ key: Key) -> ValueDecoder? {
        guard let value = lookUp(key), !value.isNull else { return nil }
        return decoder.child(value, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        lookUp(key)?.isNull ?? true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let child = try member(key)
        if child.value.isNull, T.self != WidgetValue.self {
            throw DecodingError.valueNotFound(type, .init(codingPath: child.codingPath, debugDescription: "null"))
        }
        return try child.decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key)?.decode(type)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key)?.decodeString() }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key)?.decodeBool() }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key)?.decodeNumber().double }

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
