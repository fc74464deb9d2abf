package import WidgetJSON
package import WidgetLiquid

/// Options a stage reads straight from the definition's object when it is written as expected: every
/// member known, each required one present, each of its type, its templates, paths and durations valid.
///
/// The registry tries ``direct(_:)`` before the ``OptionsDecoder``: a stage's options are then read
/// without the `Decodable` machinery, which costs most of a definition's checking. Anything else — a
/// missing, unknown, null or mistyped member, a bad template — is ``DirectMembers/NotDirect``, and the
/// options are decoded as before, so every problem is reported by the decoder, word for word.
///
/// An implementation must make exactly the value the options' `init(from:)` makes of every object it
/// accepts.
package protocol DirectOptions: Sendable {
    /// The options of `members`, or ``DirectMembers/NotDirect`` to leave them to the decoder.
    static func direct(_ members: DirectMembers) throws(DirectMembers.NotDirect) -> Self
}

/// The members of a stage's options object, read for ``DirectOptions``: each accessor gives the value as
/// `Decodable` would, or throws ``NotDirect`` for anything the decoder should see.
package struct DirectMembers {
    /// The options' object was not written as expected: decode it instead.
    package struct NotDirect: Error {
        package init() {}
    }

    /// The options' object.
    package let object: WidgetObject
    /// The cache templates are compiled through, as the decoder does, so a text is compiled once.
    let templates: TemplateCache?
    /// The filters templates are compiled with when there is no cache.
    let filters: FilterRegistry

    /// Checks that every member is one of `keys`: any other is unknown.
    package func only<Key: CodingKey & RawRepresentable<String>>(_ keys: Key.Type) throws(NotDirect) {
        for key in object.keys where Key(rawValue: key) == nil { throw NotDirect() }
    }

    /// The member `key` when written and not null; `nil` when absent. A null member is left to the decoder.
    private func present(_ key: String) throws(NotDirect) -> WidgetValue? {
        guard let value = object[key] else { return nil }
        if value.isNull { throw NotDirect() }
        return value
    }

    private func required(_ key: String) throws(NotDirect) -> WidgetValue {
        guard let value = try present(key) else { throw NotDirect() }
        return value
    }

    // MARK: Kinds of values

    private func string(_ value: WidgetValue) throws(NotDirect) -> String {
        guard case .string(let text) = value else { throw NotDirect() }
        return text
    }

    private func integer(_ value: WidgetValue) throws(NotDirect) -> Int {
        guard case .number(let number) = value, let int = number.int else { throw NotDirect() }
        return int
    }

    private func bool(_ value: WidgetValue) throws(NotDirect) -> Bool {
        guard case .bool(let flag) = value else { throw NotDirect() }
        return flag
    }

    private func template(_ value: WidgetValue) throws(NotDirect) -> Template {
        let source = try string(value)
        do throws(ExpressionError) {
            if let templates { return try templates.template(source) }
            return try Template(source, filters: filters)
        } catch {
            throw NotDirect()
        }
    }

    private func jsonPath(_ value: WidgetValue) throws(NotDirect) -> JSONPath {
        let text = try string(value)
        do throws(ExpressionError) {
            if let templates { return try templates.jsonPath(text) }
            return try JSONPath(text)
        } catch {
            throw NotDirect()
        }
    }

    private func duration(_ value: WidgetValue) throws(NotDirect) -> WidgetDuration {
        guard let duration = WidgetDuration(try string(value)) else { throw NotDirect() }
        return duration
    }

    private func templateTree(_ value: WidgetValue) throws(NotDirect) -> TemplateTree {
        do {
            return try TemplateTree(decoded: value, cache: templates, filters: filters, codingPath: [])
        } catch {
            throw NotDirect()
        }
    }

    private func templateMap(_ value: WidgetValue) throws(NotDirect) -> [String: Template] {
        guard case .object(let object) = value else { throw NotDirect() }
        var templates: [String: Template] = [:]
        for (key, member) in zip(object.keys, object.values) {
            // A null member is an error of the decoder's; `template` leaves it, as any non-string, to it.
            templates[key] = try template(member)
        }
        return templates
    }

    private func strings(_ value: WidgetValue) throws(NotDirect) -> [String] {
        guard case .array(let elements) = value else { throw NotDirect() }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements { strings.append(try string(element)) }
        return strings
    }

    // MARK: Members

    /// The required string `key`.
    package func string(_ key: String) throws(NotDirect) -> String { try string(try required(key)) }
    /// The optional string `key`.
    package func optionalString(_ key: String) throws(NotDirect) -> String? {
        try present(key).map { v throws(NotDirect) in try string(v) }
    }
    /// The required whole number `key`.
    package func integer(_ key: String) throws(NotDirect) -> Int { try integer(try required(key)) }
    /// The optional whole number `key`.
    package func optionalInteger(_ key: String) throws(NotDirect) -> Int? {
        try present(key).map { v throws(NotDirect) in try integer(v) }
    }
    /// The optional Boolean `key`.
    package func optionalBool(_ key: String) throws(NotDirect) -> Bool? { try present(key).map { v throws(NotDirect) in try bool(v) } }
    /// The required template `key`, compiled.
    package func template(_ key: String) throws(NotDirect) -> Template { try template(try required(key)) }
    /// The required JSONPath `key`, parsed.
    package func jsonPath(_ key: String) throws(NotDirect) -> JSONPath { try jsonPath(try required(key)) }
    /// The optional JSONPath `key`, parsed.
    package func optionalJSONPath(_ key: String) throws(NotDirect) -> JSONPath? {
        try present(key).map { v throws(NotDirect) in try jsonPath(v) }
    }
    /// The optional duration `key`.
    package func optionalDuration(_ key: String) throws(NotDirect) -> WidgetDuration? {
        try present(key).map { v throws(NotDirect) in try duration(v) }
    }
    /// The required template tree `key`, its templates compiled.
    package func templateTree(_ key: String) throws(NotDirect) -> TemplateTree { try templateTree(try required(key)) }
    /// The optional template tree `key`, its templates compiled.
    package func optionalTemplateTree(_ key: String) throws(NotDirect) -> TemplateTree? {
        try present(key).map { v throws(NotDirect) in try templateTree(v) }
    }
    /// The optional object of templates `key`, compiled.
    package func optionalTemplateMap(_ key: String) throws(NotDirect) -> [String: Template]? {
        try present(key).map { v throws(NotDirect) in try templateMap(v) }
    }
    /// The optional array of strings `key`.
    package func optionalStrings(_ key: String) throws(NotDirect) -> [String]? {
        try present(key).map { v throws(NotDirect) in try strings(v) }
    }
}
