/// The rule a widget's id follows: 1 to 64 characters, lowercase letters, digits, `.`, `_` or `-`,
/// starting with a letter or digit. The definition model checks it; ``DefinitionReader`` gives it out.
enum WidgetIDRule {
    /// What ``isValid(_:)`` accepts, as a regular expression.
    static let pattern = "^[a-z0-9][a-z0-9._-]{0,63}$"

    /// The rule ``isValid(_:)`` checks, as a sentence for problems.
    static let sentence = "an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"

    /// Whether `id` matches ``pattern``, `^[a-z0-9][a-z0-9._-]{0,63}$`.
    static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        func allowed(_ byte: UInt8, first: Bool) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): !first
            default: false
            }
        }
        return bytes.enumerated().allSatisfy { allowed($0.element, first: $0.offset == 0) }
    }

    /// The ending no widget's id may have: `OUT/<id>.history.json` is the history of the widget `<id>`,
    /// so the snapshot of a widget `<id>.history` would take its place.
    static let historySuffix = ".history"

    /// Why `id` is refused although it matches ``pattern``, as a sentence with a fix; `nil` when it is not.
    static func reservation(of id: String) -> String? {
        guard id.hasSuffix(historySuffix) else { return nil }
        return
            "an id may not end in \"\(historySuffix)\": OUT/\(id.dropLast(historySuffix.count)).history.json is the history of the widget \"\(id.dropLast(historySuffix.count))\"; "
            + "choose another ending, e.g. \"\(id.dropLast(historySuffix.count))-history\""
    }
}
