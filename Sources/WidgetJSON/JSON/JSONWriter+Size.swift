// MARK: - Size

extension JSONWriter {
    /// The number of bytes ``data(_:style:)`` would write for `value`, counted without writing them; once
    /// the count passes `limit`, it stops and returns what it has counted (more than `limit`).
    ///
    /// - Parameters:
    ///   - value: The value to measure.
    ///   - style: The layout it would be written in.
    ///   - indent: The level `value` is written at inside a larger document (its lines are indented by two
    ///     spaces a level in the pretty style).
    ///   - limit: The count past which counting stops.
    ///
    /// ```swift
    /// JSONWriter.size(of: ["a": [1, 2]], style: .compact) // 11, as {"a":[1,2]}
    /// ```
    public static func size(of value: WidgetValue, style: Style = .compact, indent: Int = 0, upTo limit: Int = .max) -> Int {
        var total = 0
        count(value, into: &total, pretty: style == .pretty, indent: indent, limit: limit)
        return total
    }

    /// The bytes of `string` as a JSON string literal, quotes included (see ``appendString(_:into:)``).
    public static func size(ofString string: String) -> Int {
        var total = 2
        for byte in string.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C: total += 2
            case 0..<0x20: total += 6
            default: total += 1
            }
        }
        return total
    }

    private static func count(_ value: WidgetValue, into total: inout Int, pretty: Bool, indent: Int, limit: Int) {
        guard total <= limit else { return }
        // A line break and the indentation of a member or element one level in, and of the closing bracket.
        let inner = pretty ? 1 + (indent + 1) * 2 : 0
        let closing = pretty ? 1 + indent * 2 : 0
        switch value {
        case .null: total += 4
        case .bool(let flag): total += flag ? 4 : 5
        case .number(let number): total += number.text.utf8.count
        case .string(let string): total += size(ofString: string)
        case .array(let elements):
            guard !elements.isEmpty else {
                total += 2
                return
            }
            total += 2 + (elements.count - 1) + elements.count * inner + closing
            for element in elements {
                count(element, into: &total, pretty: pretty, indent: indent + 1, limit: limit)
                if total > limit { return }
            }
        case .object(let object):
            guard !object.isEmpty else {
                total += 2
                return
            }
            total += 2 + (object.count - 1) + object.count * (inner + 1 + (pretty ? 1 : 0)) + closing
            for (key, member) in object {
                total += size(ofString: key)
                count(member, into: &total, pretty: pretty, indent: indent + 1, limit: limit)
                if total > limit { return }
            }
        }
    }
}
