extension WidgetValue {
    /// This value with the node at each location replaced, every container on the way rebuilt once
    /// however many of its members change.
    ///
    /// Locations are those ``JSONPath/locate(_:)`` gives; one that leads nowhere (a key the object does not
    /// have, an index past the end) is ignored. When a location lies inside another that is replaced too,
    /// the outer replacement wins.
    ///
    /// ```swift
    /// let value: WidgetValue = ["items": [1, 2, 3]]
    /// value.replacing([(ValuePath.root.appending("items").appending(index: 1), "two")])
    /// // ["items": [1, "two", 3]]
    /// ```
    public func replacing(_ replacements: [(path: ValuePath, value: WidgetValue)]) -> WidgetValue {
        guard !replacements.isEmpty else { return self }
        return Self.replacing(in: self, replacements.map { ($0.path.components[...], $0.value) })
    }

    private static func replacing(
        in value: WidgetValue,
        _ edits: [(path: ArraySlice<ValuePath.Component>, value: WidgetValue)]
    ) -> WidgetValue {
        if let whole = edits.last(where: { $0.path.isEmpty }) { return whole.value }
        switch value {
        case .object(var object):
            var byKey: [String: [(path: ArraySlice<ValuePath.Component>, value: WidgetValue)]] = [:]
            var order: [String] = []
            for edit in edits {
                guard case .key(let key)? = edit.path.first, object[key] != nil else { continue }
                if byKey[key] == nil { order.append(key) }
                byKey[key, default: []].append((edit.path.dropFirst(), edit.value))
            }
            for key in order {
                guard let member = object[key], let inner = byKey[key] else { continue }
                object[key] = replacing(in: member, inner)
            }
            return .object(object)
        case .array(var items):
            var byIndex: [Int: [(path: ArraySlice<ValuePath.Component>, value: WidgetValue)]] = [:]
            for edit in edits {
                guard case .index(let index)? = edit.path.first, items.indices.contains(index) else { continue }
                byIndex[index, default: []].append((edit.path.dropFirst(), edit.value))
            }
            for (index, inner) in byIndex { items[index] = replacing(in: items[index], inner) }
            return .array(items)
        default:
            return value
        }
    }
}
