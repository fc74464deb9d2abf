public import WidgetJSON

/// What to serve when a refresh fails: `"fallback": {"keep": 20, "pick": "daily"}`.
public struct FallbackPolicy: Sendable, Hashable {
    /// How to choose among kept items.
    public enum Pick: String, Sendable, CaseIterable {
        /// The newest good data.
        case latest
        /// One kept item, the same all day: chosen by the date in the widget's zone.
        case daily
        /// A kept item at random on each failure.
        case random
    }

    /// How many last good items to keep for fallback.
    public var keep: Int
    /// Which kept item to serve.
    public var pick: Pick

    /// The most items ``keep`` may name.
    public static let maximumKeep = 10_000

    /// The kept item to serve on local day number `day` (days since 1970-01-01 in the widget's zone),
    /// among `items`; `nil` for ``Pick/latest``, which serves the last good entries as they were, and
    /// when nothing is kept.
    public func choose(among items: [WidgetValue], day: Int) -> WidgetValue? {
        guard !items.isEmpty else { return nil }
        switch pick {
        case .latest: return nil
        case .daily: return items[((day % items.count) + items.count) % items.count]
        case .random: return items.randomElement()
        }
    }

    /// The items to keep after a successful refresh: `newest` first, then the kept `items` not among
    /// them, ``keep`` at most.
    public func kept(_ newest: [WidgetValue], after items: [WidgetValue]) -> [WidgetValue] {
        var kept = newest
        for item in items where !kept.contains(item) { kept.append(item) }
        return Array(kept.prefix(keep))
    }

    /// Creates a policy from its parts; by default the latest good data, one item kept.
    public init(keep: Int = 1, pick: Pick = .latest) {
        self.keep = keep
        self.pick = pick
    }
}

extension FallbackPolicy: Decodable, DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case keep, pick

        public var keyDescription: KeyDescription {
            switch self {
            case .keep:
                KeyDescription(
                    "How many last good items to keep for serving when a refresh fails.",
                    .integer(minimum: 1, maximum: FallbackPolicy.maximumKeep), default: .number(WidgetNumber(FallbackPolicy().keep))
                )
            case .pick:
                KeyDescription(
                    "Which kept item to serve: the latest, one a day chosen by the date in the widget's zone, or one at random.",
                    .oneOf(Pick.allCases.map(\.rawValue)), default: .string(FallbackPolicy().pick.rawValue)
                )
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let members = try DescribedMembers(ValueDecoder(decoder), keyedBy: CodingKeys.self) { _ in
            "\"fallback\" must be an object such as {\"keep\": 20, \"pick\": \"daily\"}"
        }
        keep =
            try members.integer(.keep, in: 1...Self.maximumKeep, problem: "\"keep\" must be a whole number from 1 to \(Self.maximumKeep)")
            ?? keep
        if let name = try members.string(.pick, what: "\"pick\"") {
            if let choice = Pick(rawValue: name) {
                pick = choice
            } else {
                let names = Pick.allCases.map(\.rawValue)
                let hint = Suggestion.hint(for: name, among: names) ?? "use " + names.map { "\"\($0)\"" }.joined(separator: ", ")
                try members.report(.pick, "\"\(name)\" is not a pick rule; \(hint)")
            }
        }
    }
}
