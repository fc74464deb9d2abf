/// A JSON object that keeps its members in the order they were written.
///
/// Lookups are by key; iteration follows insertion order. Setting an existing key replaces its value in
/// place. Two objects are equal when they hold the same members, in any order.
public struct WidgetObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The keys, in member order.
    public private(set) var keys: [String]
    /// The values, in member order: `values[i]` belongs to `keys[i]`.
    public private(set) var values: [WidgetValue]
    /// Built once an object grows past a handful of members; small objects are searched linearly.
    private var index: [String: Int]?

    /// Objects with more members than this keep a dictionary from key to position.
    static let indexThreshold = 12

    /// Creates an empty object.
    public init() {
        keys = []
        values = []
    }

    /// Wraps members a parser has already made unique; `index` must map every key to its position when
    /// there are more than ``indexThreshold`` members, and be `nil` otherwise.
    package init(uniqueKeys keys: [String], values: [WidgetValue], index: [String: Int]?) {
        self.keys = keys
        self.values = values
        self.index = index
    }

    /// Creates an object from members in order; a repeated key keeps its first position and last value.
    public init(_ members: some Sequence<(String, WidgetValue)>) {
        self.init()
        for (key, value) in members { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, WidgetValue)...) {
        self.init(elements)
    }

    /// The number of members.
    public var count: Int { keys.count }
    /// Whether the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The position of `key`, if present.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        return keys.firstIndex(of: key)
    }

    /// The value of the member `key`, or `nil` when there is none.
    ///
    /// Setting a value replaces an existing member in place or appends a new one at the end; setting `nil`
    /// removes the member.
    public subscript(key: String) -> WidgetValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                appendUnchecked(key: key, value: newValue)
            }
        }
    }

    /// This object without the member `key` and those `more` names: what setting each to `nil` in turn
    /// makes, copied once.
    package func removing(_ key: String, _ more: [String]) -> WidgetObject {
        func removed(_ name: String) -> Bool { name == key || more.contains(name) }
        guard keys.contains(where: removed) else { return self }
        var kept = WidgetObject()
        kept.keys.reserveCapacity(keys.count)
        kept.values.reserveCapacity(keys.count)
        for position in keys.indices where !removed(keys[position]) {
            kept.keys.append(keys[position])
            kept.values.append(values[position])
        }
        kept.rebuildIndex()
        return kept
    }

    /// Appends a member without checking for an existing key. For parsers that have already checked.
    public mutating func appendUnchecked(key: String, value: WidgetValue) {
        keys.append(key)
        values.append(value)
        if index != nil {
            index![key] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    private mutating func rebuildIndex() {
        index = keys.count > Self.indexThreshold ? Self.makeIndex(keys) : nil
    }

    /// The index from key to position of the unique keys `keys`.
    static func makeIndex(_ keys: [String]) -> [String: Int] {
        var map = [String: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() { map[key] = position }
        return map
    }

    public func makeIterator() -> some IteratorProtocol<(key: String, value: WidgetValue)> {
        zip(keys, values).lazy.map { (key: $0.0, value: $0.1) }.makeIterator()
    }

    public static func == (lhs: WidgetObject, rhs: WidgetObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs where rhs[key] != value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine each member's hash commutatively.
        var combined = 0
        for (key, value) in self {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            combined ^= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}
