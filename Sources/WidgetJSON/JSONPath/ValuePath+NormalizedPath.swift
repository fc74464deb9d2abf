extension ValuePath {
    /// The location as an RFC 9535 normalized path (§2.7): bracket notation with single-quoted names,
    /// `$['store']['book'][0]`.
    ///
    /// ``description`` writes the friendlier dot notation (`$.store.book[0]`); use this form where a
    /// normalized path is expected, such as comparing with the JSONPath Compliance Test Suite.
    public var normalizedPath: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                ValuePath.appendQuoted(key: key, to: &text)
            }
        }
        return text
    }
}
