import Foundation
import WidgetJSON
import WidgetLiquid

/// The members of one object of a definition, read through the ``OptionsDecoder`` so that a bad member is
/// reported and the others still read.
///
/// Under ``OptionsDecoder/decode(_:from:problems:)`` each problem is recorded and the member reads as
/// absent; under ``OptionsDecoder/decode(_:from:)`` the first problem is thrown. Every member is asked for
/// through the decoder, so the keys nobody asked for are reported as unknown, with hints from `Key`.
///
/// ```swift
/// let members = try DescribedMembers(ValueDecoder(decoder), keyedBy: CodingKeys.self) { "\"fallback\" must be an object, not \($0)" }
/// let keep = try members.integer(.keep, in: 1...10_000, problem: "…")
/// ```
struct DescribedMembers<Key: DescribedKey> {
    let decoder: ValueDecoder
    private let container: KeyTracker.Container

    /// Opens the object being decoded.
    ///
    /// - Parameter notAnObject: the sentence for a value that is not an object, given its type name.
    /// - Throws: ``OptionsError`` with that sentence.
    init(_ decoder: ValueDecoder, keyedBy: Key.Type, notAnObject: (String) -> String) throws {
        self.decoder = decoder
        guard case .object(let object) = decoder.value else {
            throw OptionsError(path: decoder.path, message: notAnObject(decoder.value.typeName))
        }
        container = decoder.tracker.open(object, at: decoder.node, keyType: Key.self)
    }

    /// Where `key` is, or the object itself.
    func path(_ key: Key? = nil) -> ValuePath {
        key.map { decoder.path.appending($0.stringValue) } ?? decoder.path
    }

    func contains(_ key: Key) -> Bool {
        value(key) != nil
    }

    /// The member as written (`null` included); `nil` when it is absent. An object is not checked further.
    func value(_ key: Key) -> WidgetValue? {
        container.lookUp(key.stringValue)
    }

    /// The member read by `T`'s own `init(from:)`; `nil` when absent or when it has a problem (reported).
    func decode<T: Decodable>(_ key: Key, as type: T.Type = T.self) throws -> T? {
        guard let value = value(key) else { return nil }
        let member = decoder.child(value, key: key)
        return try decoder.recovering { try T(from: member) }
    }

    /// ``decode(_:as:)`` through `library`, when there is one: a member equal to one that another file of
    /// the same load read cleanly (see ``MemberLibrary``) is taken from it, undecoded.
    func decode<T: Decodable & Sendable>(_ key: Key, as type: T.Type = T.self, sharedIn library: MemberLibrary?) throws -> T? {
        guard let library, let value = value(key) else { return try decode(key, as: type) }
        let tracker = decoder.tracker
        let problems = tracker.problems.count
        let opened = tracker.containers.count
        return try library.member(T.self, at: path(key), value) {
            let member = try decode(key, as: type)
            // Clean: no problem, and every object opened below it asked for all its keys or was read whole.
            let clean = tracker.problems.count == problems && tracker.containers[opened...].allSatisfy { $0.dynamic || $0.askedAll }
            return (member, clean)
        }
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

    /// The member as a time zone Foundation knows (`Europe/Paris`, `UTC`); reports a name it does not know
    /// with a "did you mean" hint.
    func timeZone(_ key: Key) throws -> TimeZone? {
        guard let name = try string(key, what: "the time zone") else { return nil }
        if let zone = TimeZone(identifier: name) { return zone }
        let hint =
            Suggestion.hint(for: name, among: TimeZone.knownTimeZoneIdentifiers)
            ?? "use an IANA name such as \"America/New_York\" or \"UTC\""
        try report(key, "\"\(name)\" is not a known time zone; \(hint)")
        return nil
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

    /// The member as a template, compiled by the decoder's `TemplateCache`, or with its filters.
    func template(_ key: Key) throws -> Template? {
        guard let text = try string(key, what: "a template") else { return nil }
        do throws(ExpressionError) {
            if let cache = decoder.tracker.templates { return try cache.template(text) }
            return try Template(text, filters: decoder.tracker.filters)
        } catch {
            try report(key, error.description, column: error.column)
            return nil
        }
    }
}
