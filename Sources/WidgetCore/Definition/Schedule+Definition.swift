import WidgetJSON

/// A schedule as a definition writes it: a word (`"atEnd"`, `"never"`) or an object with one rule,
/// `{"every": "15m"}`, `{"at": ["08:00", "20:00"]}` or `{"cron": "0 */4 * * *"}`, and its options.
extension Schedule: Decodable, DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case every, at, cron, jitter, maxPerDay, allowFrequent

        public var keyDescription: KeyDescription {
            switch self {
            case .every:
                KeyDescription("Refresh every interval of elapsed time; under 5 minutes needs \"allowFrequent\".", .duration)
            case .at:
                KeyDescription(
                    "Refresh at these local times of day in the widget's time zone.",
                    .either([.timeOfDay, .array(.timeOfDay, minItems: 1)])
                )
            case .cron:
                KeyDescription(
                    "Refresh by a five-field cron expression (Vixie semantics) or a macro such as @daily, in the widget's time zone.",
                    .string(pattern: Schedule.cronPattern, examples: ["0 */4 * * *", "*/15 8-20 * * mon-fri", "@daily"])
                )
            case .jitter:
                KeyDescription("Delay every due time by a fixed amount up to this long, derived from the widget's id.", .duration)
            case .maxPerDay:
                KeyDescription(
                    "At most this many refreshes a day in the widget's zone, manual reloads included (WidgetKit's daily budget); no cap without it.",
                    .integer(minimum: 1)
                )
            case .allowFrequent:
                KeyDescription("Allow intervals and cron rules under 5 minutes, when the source allows it.", .boolean, default: false)
            }
        }
    }

    /// The rules, of which a schedule object has exactly one.
    public static var exactlyOneOf: [CodingKeys] { [.every, .at, .cron] }

    /// The schedules written as a single word.
    public static let words: [(word: String, rule: Rule)] = [("atEnd", .atEnd), ("never", .never)]

    /// Five fields separated by spaces, or a macro: the shape ``CronExpression`` reads.
    static let cronPattern = "^\\s*(@[A-Za-z]+|\\S+(\\s+\\S+){4})\\s*$"

    /// Whether `object` has a key that looks like a misspelt rule (`evry`), reported as such instead of
    /// as a missing rule.
    private static func hasMisspeltRule(_ object: WidgetValue) -> Bool {
        let rules = exactlyOneOf.map(\.rawValue)
        return object.object?.keys.contains { !rules.contains($0) && Suggestion.closest(to: $0, among: rules) != nil } ?? false
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let decoder = try ValueDecoder(decoder)
        let path = decoder.path
        if case .string(let text) = decoder.value {
            guard let word = Self.words.first(where: { $0.word == text }) else {
                let words = Self.words.map(\.word)
                let hint =
                    Suggestion.hint(for: text, among: words)
                    ?? "write " + words.map { "\"\($0)\"" }.joined(separator: ", ") + ", or an object such as {\"every\": \"15m\"}"
                throw OptionsError(path: path, message: "\"\(text)\" is not a schedule; \(hint)")
            }
            rule = word.rule
            return
        }
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) {
            "a schedule is \"atEnd\", \"never\" or an object such as {\"every\": \"15m\"}, not \($0)"
        }
        let present = Self.exactlyOneOf.filter { members.contains($0) }
        if present.count > 1 {
            try members.report(
                nil,
                "a schedule has one rule, but this one has \(present.map { "\"\($0.rawValue)\"" }.joined(separator: " and ")); keep one")
        } else if present.isEmpty, !Self.hasMisspeltRule(decoder.value) {
            try members.report(nil, "the schedule has no rule; add \"every\", \"at\" or \"cron\", e.g. {\"every\": \"15m\"}")
        }
        if let flag = members.value(.allowFrequent) {
            if case .bool(let flag) = flag {
                allowFrequent = flag
            } else {
                try members.report(.allowFrequent, "\"allowFrequent\" must be true or false")
            }
        }
        if let text = try members.string(.every, what: "\"every\"") {
            if let interval = WidgetDuration(text), interval.seconds > 0 {
                rule = .every(interval)
                if interval < Self.frequentLimit, !allowFrequent {
                    try members.report(
                        .every,
                        "\"\(text)\" is shorter than 5 minutes; add \"allowFrequent\": true if the source allows it, or use e.g. \"5m\"")
                }
            } else {
                try members.report(.every, WidgetDuration.problem(text))
            }
        }
        if let times = members.value(.at) {
            let list = times.array ?? [times]
            var parsed: [TimeOfDay] = []
            for (index, element) in list.enumerated() {
                if let text = element.string, let time = TimeOfDay(text) {
                    parsed.append(time)
                } else {
                    let place = times.array == nil ? members.path(.at) : members.path(.at).appending(index: index)
                    try decoder.report(
                        OptionsError(path: place, message: "\(element) is not a time of day; write e.g. \"08:00\" (24-hour HH:MM)"))
                }
            }
            if list.isEmpty { try members.report(.at, "\"at\" needs at least one time, e.g. [\"08:00\"]") }
            rule = .at(Array(Set(parsed)).sorted())
        }
        if let text = try members.string(.cron, what: "\"cron\"") {
            switch Result(catching: { () throws(ExpressionError) in try CronExpression(text) }) {
            case .success(let cron):
                rule = .cron(cron)
                if cron.shortestGapInMinutes < Self.frequentLimit.seconds / 60, !allowFrequent {
                    try members.report(
                        .cron,
                        "\"\(text)\" fires more often than every 5 minutes; add \"allowFrequent\": true if the source allows it, or use e.g. \"*/5 * * * *\""
                    )
                }
            case .failure(let error):
                try members.report(.cron, error.description, column: error.column)
            }
        }
        jitter = try members.duration(.jitter, what: "\"jitter\"")
        maxPerDay =
            try members.integer(.maxPerDay, in: 1...Int.max, problem: "\"maxPerDay\" must be a whole number above 0, e.g. 70") ?? maxPerDay
    }
}
