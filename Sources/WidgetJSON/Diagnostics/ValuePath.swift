/// A location inside a JSON value, written as a normalized JSONPath in dot notation:
/// `$.transforms[1].fields.title`, or `$['odd key']` for keys that are not identifiers.
public struct ValuePath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path: an object member's key or an array element's index.
    public enum Component: Sendable, Hashable {
        /// An object member, by key: `.title` or `['odd key']`.
        case key(String)
        /// An array element, by 0-based index: `[1]`.
        case index(Int)
    }

    /// The steps from the root, outermost first; empty for the root.
    public private(set) var components: [Component]

    /// The root, `$`.
    public static let root = ValuePath(components: [])

    /// Creates a path from its steps, outermost first.
    public init(components: [Component]) {
        self.components = components
    }

    /// This path followed by the object member `key`.
    public func appending(_ key: String) -> ValuePath {
        ValuePath(components: components + [.key(key)])
    }

    /// This path followed by the array element at `index` (0-based).
    public func appending(index: Int) -> ValuePath {
        ValuePath(components: components + [.index(index)])
    }

    /// This path followed by `other`'s steps: `other` read relative to this path.
    public func appending(_ other: ValuePath) -> ValuePath {
        ValuePath(components: components + other.components)
    }

    /// Builds a path from `Decodable` coding keys.
    public init(codingPath: [any CodingKey]) {
        components = codingPath.map { key in
            if let index = key.intValue { return .index(index) }
            return .key(key.stringValue)
        }
    }

    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                ValuePath.append(key: key, to: &text)
            }
        }
        return text
    }

    /// Appends `.key` or `['key']` to a path being written.
    public static func append(key: String, to text: inout String) {
        if isIdentifier(key) {
            text += "."
            text += key
        } else {
            appendQuoted(key: key, to: &text)
        }
    }

    /// Appends `['key']` with RFC 9535's escapes (§2.7): `\'`, `\\`, `\n` and `\u00XX` for other
    /// control characters.
    public static func appendQuoted(key: String, to text: inout String) {
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

    /// Whether `key` is a name, `[A-Za-z_][A-Za-z0-9_]*`: written `.key` in a path, and what a template
    /// can read as a variable.
    package static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first else { return false }
        func isLetter(_ byte: UInt8) -> Bool {
            (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || byte == 95
        }
        guard isLetter(first) else { return false }
        return key.utf8.allSatisfy { isLetter($0) || ($0 >= 48 && $0 <= 57) }
    }
}
