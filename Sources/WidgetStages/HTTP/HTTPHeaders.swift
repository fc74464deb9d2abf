/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and repeated names are kept as written, because some servers care; lookups ignore case, as
/// HTTP requires.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.add(name: "X-Trace", value: "1")
/// headers["accept"]   // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The name as written (`Content-Type`).
        public var name: String
        /// The value as written.
        public var value: String
        /// Whether the value came from a secret (a template that reads `env` or `secret`): such a field
        /// goes only to the origin it was written for, never to another one a redirect points to.
        public var isSecret: Bool

        /// A field with `name` and `value`, kept as written; `isSecret` when the value came from a secret.
        public init(name: String, value: String, isSecret: Bool = false) {
            self.name = name
            self.value = value
            self.isSecret = isSecret
        }
    }

    /// The fields, in order.
    public private(set) var fields: [Field]

    /// Creates headers from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    // MARK: - Lookup

    /// The first value of the field called `name` (any case), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the fields called `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a field called `name` (any case) is present.
    public func contains(name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    // MARK: - Changes

    /// Appends a field, keeping any field of the same name; `isSecret` when its value came from a secret
    /// (see ``Field/isSecret``).
    public mutating func add(name: String, value: String, isSecret: Bool = false) {
        fields.append(Field(name: name, value: value, isSecret: isSecret))
    }

    /// Replaces every field called `name` (any case) by one field with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field called `name` (any case).
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Removes every field for which `shouldRemove` is true.
    public mutating func removeAll(where shouldRemove: (Field) -> Bool) {
        fields.removeAll(where: shouldRemove)
    }

    // MARK: - Collection

    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position past the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`, in order.
    public subscript(position: Int) -> Field { fields[position] }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
