/// The members of one object of a definition, read through the ``OptionsDecoder`` so that a bad member is
/// reported and the others still read.
///
/// Under ``OptionsDecoder/decode(_:from:problems:)`` each problem is recorded and the member reads as
/// absent; under ``OptionsDecoder/decode(_:from:)`` the first problem is thrown. Every member is asked for
/// through the decoder, so the keys nobody asked for are reported as unknown, with hints from `Key`.
///
/// ```swift
/// let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { "\"fallback\" must be an object, not \($0)" }
/// let keep = try members.value(.keep)
/// ```
struct DescribedMembers<Key: DescribedKey> {
    let decoder: any Decoder
    private let container: KeyedDecodingContainer<Key>

    /// Opens the object being decoded.
    ///
    /// - Parameter notAnObject: the sentence for a value that is not an object, given its type name.
    /// - Throws: ``OptionsError`` with that sentence.
    init(_ decoder: any Decoder, keyedBy: Key.Type, notAnObject: (String) -> String) throws {
        self.decoder = decoder
        if let value = decoder.widgetValue, value.object == nil {
            throw OptionsError(path: decoder.valuePath, message: notAnObject(value.typeName))
        }
        container = try decoder.container(keyedBy: Key.self)
    }

    /// Where `key` is, or the object itself.
    func path(_ key: Key? = nil) -> ValuePath {
        key.map { decoder.valuePath.appending($0.stringValue) } ?? decoder.valuePath
    }

    func contains(_ key: Key) -> Bool {
        container.contains(key)
    }

    /// The member as written (`null` included); `nil` when it is absent.
    func value(_ key: Key) -> WidgetValue? {
        guard container.contains(key) else { return nil }
        return try? container.decode(WidgetValue.self, forKey: key)
    }

    /// The member read by `T`'s own `init(from:)`; `nil` when absent or when it has a problem (reported).
    func decode<T: Decodable>(_ key: Key, as type: T.Type = T.self) throws -> T? {
        guard container.contains(key) else { return nil }
        let member = try container.superDecoder(forKey: key)
        return try decoder.recovering { try T(from: member) }
    }

    /// Reports a problem of the member `key` (of the object itself when `nil`).
    func report(_ key: Key?, _ message: String, atKey: Bool = false, column: Int? = nil) throws {
        try decoder.report(OptionsError(path: path(key), message: message, expressionColumn: column, pointsAtKey: atKey))
    }

    // MARK: - Scalars

    /// The member as a string; reports `WHAT must be a string, not TYPE` for anything else.
    func string(_ key: Key, what: String) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else {
            try report(key, "\(what) must be a string, not \(value.typeName)")
            return nil
        }
        return text
    }

    /// The member as a duration such as `15m`.
    func duration(_ key: Key, what: String) throws -> WidgetDuration? {
        guard let text = try string(key, what: what) else { return nil }
        guard let duration = WidgetDuration(text) else {
            try report(key, WidgetDuration.problem(text))
            return nil
        }
        return duration
    }

    /// The member as a whole number in `range`; reports `problem` for anything else.
    func integer(_ key: Key, in range: ClosedRange<Int>, problem: String) throws -> Int? {
        guard let value = value(key) else { return nil }
        guard let count = value.number?.int, range.contains(count) else {
            try report(key, problem)
            return nil
        }
        return count
    }

    /// The member as a template, parsed with the filters of the decoder's `userInfo`.
    func template(_ key: Key) throws -> Template? {
        guard let text = try string(key, what: "a template") else { return nil }
        let filters = decoder.userInfo[FilterRegistry.userInfoKey] as? FilterRegistry ?? .standard
        do throws(ExpressionError) {
            return try Template(text, filters: filters)
        } catch {
            try report(key, error.description, column: error.column)
            return nil
        }
    }
}

extension Decoder {
    /// The value being decoded, when this is the ``OptionsDecoder`` (to name what a problem found).
    var widgetValue: WidgetValue? { (self as? ValueDecoder)?.value }

    /// The value being decoded, without claiming its members (as decoding a ``WidgetValue`` does).
    func peekValue() throws -> WidgetValue {
        if let value = widgetValue { return value }
        return try singleValueContainer().decode(WidgetValue.self)
    }

    /// Where the decoder is, as a JSON path.
    var valuePath: ValuePath { ValuePath(codingPath: codingPath) }
}
