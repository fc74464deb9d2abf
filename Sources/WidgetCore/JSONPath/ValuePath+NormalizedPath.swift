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
                text += "['"
                for scalar in key.unicodeScalars {
                    switch scalar {
                    case "\u{08}": text += "\\b"
                    case "\u{0C}": text += "\\f"
                    case "\n": text += "\\n"
                    case "\r": text += "\\r"
                    case "\t": text += "\\t"
                    case "'": text += "\\'"
                    case "\\": text += "\\\\"
                    default:
                        if scalar.value < 0x20 {
                            let hex = String(scalar.value, radix: 16)
                            text += "\\u00" + (hex.count == 1 ? "0" : "") + hex
                        } else {
                            text.unicodeScalars.append(scalar)
                        }
                    }
                }
                text += "']"
            }
        }
        return text
    }
}
