import Foundation
import Synchronization

/// An I-Regexp (RFC 9485) translated to an `NSRegularExpression`, for the `match` and `search` functions.
///
/// The pattern is checked against the I-Regexp grammar and rewritten so that ICU reads it the same way:
/// punctuation and control characters are escaped, `.` becomes `[^\n\r]`, `^` and `$` become `\A` and `\z` (as the
/// JSONPath Compliance Test Suite expects), and a `match` pattern is anchored
/// with `\A(?:…)\z`. Invalid patterns give `nil`, which the functions treat as "no match".
struct IRegexp: Sendable {
    /// `NSRegularExpression` is documented as safe to use from several threads.
    private final class Box: @unchecked Sendable {
        let regex: NSRegularExpression
        init(_ regex: NSRegularExpression) { self.regex = regex }
    }

    /// The deepest nesting of groups accepted.
    static let maximumDepth = 64

    /// The largest bound accepted in a `{n,m}` repetition.
    static let maximumRepetition = 1000

    private let box: Box

    /// Compiles `pattern`; `nil` when it is not a valid I-Regexp.
    ///
    /// - Parameter anchored: whether the whole string must match (`match`) rather than a substring
    ///   (`search`).
    init?(_ pattern: String, anchored: Bool) {
        var translator = Translator(Array(pattern.unicodeScalars))
        guard let translated = translator.translate() else { return nil }
        let icu = anchored ? "\\A(?:\(translated))\\z" : translated
        guard let regex = try? NSRegularExpression(pattern: icu, options: []) else { return nil }
        box = Box(regex)
    }

    private struct CacheKey: Hashable {
        var pattern: String
        var anchored: Bool
    }

    /// Patterns that come from the document (`match(@.name, $.pattern)`) are compiled once each, not once per
    /// node; the cache is emptied when it holds ``cacheLimit`` patterns.
    private static let cache = Mutex<[CacheKey: IRegexp?]>([:])

    /// The most patterns kept by ``cached(_:anchored:)``.
    static let cacheLimit = 256

    /// Like ``init(_:anchored:)``, but reuses an earlier compilation of the same pattern.
    static func cached(_ pattern: String, anchored: Bool) -> IRegexp? {
        let key = CacheKey(pattern: pattern, anchored: anchored)
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let compiled = IRegexp(pattern, anchored: anchored)
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll() }
            entries[key] = compiled
        }
        return compiled
    }

    /// Whether the pattern matches `text` (all of it for `match`, a part of it for `search`).
    func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return box.regex.firstMatch(in: text, options: [], range: range) != nil
    }

    // MARK: - Translation

    /// Reads the I-Regexp grammar of RFC 9485 §5 and writes the equivalent ICU pattern.
    private struct Translator {
        let scalars: [Unicode.Scalar]
        var position = 0
        var depth = 0
        var output = ""

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        mutating func translate() -> String? {
            guard regexp(), position == scalars.count else { return nil }
            return output
        }

        /// `i-regexp = branch *( "|" branch )`
        mutating func regexp() -> Bool {
            guard branch() else { return false }
            while current == "|" {
                position += 1
                output += "|"
                guard branch() else { return false }
            }
            return true
        }

        /// `branch = *piece`; `piece = atom [ quantifier ]`
        mutating func branch() -> Bool {
            while let scalar = current, scalar != "|", scalar != ")" {
                guard atom(), quantifier() else { return false }
            }
            return true
        }

        mutating func quantifier() -> Bool {
            guard let scalar = current else { return true }
            switch scalar {
            case "*", "+", "?":
                position += 1
                output.unicodeScalars.append(scalar)
                return true
            case "{":
                position += 1
                guard let low = digits() else { return false }
                var text = "{\(low)"
                if current == "," {
                    position += 1
                    text += ","
                    if current != "}" {
                        guard let high = digits() else { return false }
                        text += high
                    }
                }
                guard current == "}" else { return false }
                position += 1
                output += text + "}"
                return true
            default:
                return true
            }
        }

        mutating func digits() -> String? {
            var text = ""
            while let scalar = current, scalar.value >= 0x30, scalar.value <= 0x39 {
                text.unicodeScalars.append(scalar)
                position += 1
            }
            // Repetition bounds above the limit are refused (RFC 9485 §8 allows limits) so that a pattern
            // cannot make ICU build a huge program.
            guard !text.isEmpty, text.count <= 4, let value = Int(text), value <= IRegexp.maximumRepetition else {
                return nil
            }
            return text
        }

        mutating func atom() -> Bool {
            guard let scalar = current else { return false }
            switch scalar {
            case "(":
                depth += 1
                guard depth <= IRegexp.maximumDepth else { return false }
                position += 1
                output += "(?:"
                guard regexp(), current == ")" else { return false }
                position += 1
                output += ")"
                depth -= 1
                return true
            case ".":
                position += 1
                output += "[^\\n\\r]"
                return true
            case "^":
                // RFC 9485's grammar reads `^` and `$` as plain characters, but the JSONPath Compliance Test
                // Suite (like the regex engines most implementations map to) reads them as anchors.
                position += 1
                output += "\\A"
                return true
            case "$":
                position += 1
                output += "\\z"
                return true
            case "[":
                return characterClassExpression()
            case "\\":
                if let property = categoryEscape() {
                    output += property
                    return true
                }
                guard let literal = singleCharacterEscape() else { return false }
                appendLiteral(literal)
                return true
            case ")", "*", "+", "?", "]", "{", "|", "}":
                return false
            default:
                position += 1
                appendLiteral(scalar)
                return true
            }
        }

        /// `SingleCharEsc`: a backslash and one of `( ) * + - . ? [ \ ] ^ n r t { | }`.
        mutating func singleCharacterEscape() -> Unicode.Scalar? {
            guard current == "\\", position + 1 < scalars.count else { return nil }
            let scalar = scalars[position + 1]
            let literal: Unicode.Scalar
            switch scalar {
            case "(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}": literal = scalar
            case "n": literal = "\n"
            case "r": literal = "\r"
            case "t": literal = "\t"
            default: return nil
            }
            position += 2
            return literal
        }

        /// `catEsc` / `complEsc`: `\p{Lu}`, `\P{N}`; returns the ICU text, or `nil` (position unchanged).
        mutating func categoryEscape() -> String? {
            guard current == "\\", position + 2 < scalars.count,
                scalars[position + 1] == "p" || scalars[position + 1] == "P", scalars[position + 2] == "{"
            else { return nil }
            var end = position + 3
            var name = ""
            while end < scalars.count, scalars[end] != "}" {
                name.unicodeScalars.append(scalars[end])
                end += 1
            }
            guard end < scalars.count, Self.categories.contains(name) else { return nil }
            let text = "\\\(scalars[position + 1]){\(name)}"
            position = end + 1
            return text
        }

        static let categories: Set<String> = [
            "L", "Ll", "Lm", "Lo", "Lt", "Lu",
            "M", "Mc", "Me", "Mn",
            "N", "Nd", "Nl", "No",
            "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps",
            "Z", "Zl", "Zp", "Zs",
            "S", "Sc", "Sk", "Sm", "So",
            "C", "Cc", "Cf", "Cn", "Co",
        ]

        /// `charClassExpr = "[" [ "^" ] ( "-" / CCE1 ) *CCE1 [ "-" ] "]"`
        mutating func characterClassExpression() -> Bool {
            position += 1  // "["
            var text = "["
            if current == "^" {
                position += 1
                text += "^"
            }
            var items = 0
            if current == "-" {
                position += 1
                text += Self.escaped("-")
                items += 1
            }
            while true {
                guard let scalar = current else { return false }
                if scalar == "]" { break }
                if scalar == "-" {
                    // Only allowed last.
                    guard items > 0, position + 1 < scalars.count, scalars[position + 1] == "]" else { return false }
                    position += 1
                    text += Self.escaped("-")
                    continue
                }
                if let property = categoryEscape() {
                    text += property
                    items += 1
                    continue
                }
                guard let low = classCharacter() else { return false }
                if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                    position += 1
                    guard let high = classCharacter(), low.value <= high.value else { return false }
                    text += Self.escaped(low) + "-" + Self.escaped(high)
                } else {
                    text += Self.escaped(low)
                }
                items += 1
            }
            guard items > 0 else { return false }
            position += 1  // "]"
            output += text + "]"
            return true
        }

        /// `CCchar`: any character but `-`, `[`, `\`, `]`, or a single-character escape.
        mutating func classCharacter() -> Unicode.Scalar? {
            guard let scalar = current else { return nil }
            switch scalar {
            case "\\": return singleCharacterEscape()
            case "-", "[", "]": return nil
            default:
                position += 1
                return scalar
            }
        }

        mutating func appendLiteral(_ scalar: Unicode.Scalar) {
            output += Self.escaped(scalar)
        }

        /// The scalar as a literal in ICU syntax, as short as possible: Foundation copies patterns longer than
        /// 256 UTF-16 units to the heap and does not free the copy.
        static func escaped(_ scalar: Unicode.Scalar) -> String {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x80...: String(scalar)
            case 0x21...0x7E, 0x20: "\\" + String(scalar)
            default: "\\x{\(String(scalar.value, radix: 16))}"
            }
        }
    }
}
