import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `widgetd preview ID --trace` prints: a refresh stage by stage, as text for people or as JSON for
/// tools.
///
/// Values are shortened so that a trace of a large payload stays readable: the text shows a list's first
/// 3 items and an object's first 10 members (all of them when only one more is left), one a line, and
/// inside a line lists of 3 items, objects of 10 members and strings of 60 characters. A line longer
/// than 120 characters whose value is an object is spread over one line per key, each key's value
/// shortened on its own (so a key added at the end still shows); any other long line is cut at 120
/// characters. The JSON keeps a list's first 5 items and an object's first 20 members, strings' first
/// 200 characters (a cut string ends with `…`), and gives a list or object nested deeper than 4 levels
/// as its shape (`"a list of 12 items"`). Every step also states the whole value's shape.
struct TraceReport {
    /// The widget's id.
    var widget: String
    /// The moment of the refresh.
    var at: Date
    /// The stages, in the order they ended.
    var steps: [PipelineTrace.Step]
    /// The snapshot the refresh gave.
    var snapshot: Snapshot
    /// Why the refresh failed, secrets masked, when it did.
    var error: RefreshFailure?
    /// The widget's secrets: masked in every value before it is cut (a server may repeat what it was
    /// sent), so that no cut splits one.
    var mask = SecretMask()
    /// What the widget's `notify` rules would do with the snapshot; `nil` for a widget without rules.
    var notify: NotifyTrace?

    /// How many items or members, and how many characters a line, the text shows.
    private static let textItems = 3
    private static let textMembers = 10
    private static let lineWidth = 120

    // MARK: - Text

    /// The trace for people.
    var text: String {
        var lines = ["trace of \(widget) at \(Timestamp.string(at))"]
        for step in steps {
            lines.append("")
            lines += Self.lines(of: step, failure: step.outcome == .failed ? error.map(\.message) : nil, mask: mask)
        }
        if let notify {
            lines.append("")
            lines += notify.lines
        }
        lines.append("")
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    /// `snapshot: fresh, 3 entries, 1 warning` or `snapshot: placeholder, 1 entry; error: …`.
    private var summary: String {
        var text = "snapshot: \(snapshot.status.rawValue), \(Self.counted(snapshot.entries.count, "entry", "entries"))"
        if !snapshot.warnings.isEmpty { text += ", \(Self.counted(snapshot.warnings.count, "warning", "warnings"))" }
        if let error { text += "; error: \(error)" }
        return text
    }

    private static func lines(of step: PipelineTrace.Step, failure: String?, mask: SecretMask) -> [String] {
        // A transform's name says its type already: `transforms[1] (filter)`.
        var name = "\(step.stage)"
        if case .transform = step.stage {} else { name += " (\(step.type))" }
        switch step.outcome {
        case .skipped:
            return ["\(name)  skipped: its \"when\" did not pass, so its value is null"]
        case .failed:
            var lines = ["\(name)  \(milliseconds(step.seconds))"]
            if let fetch = step.fetch { lines += fetchLines(fetch) }
            lines.append("  ! failed: \(failure ?? "see the error on the last line")")
            return lines
        case .done, .reused:
            var lines = ["\(name)  \(milliseconds(step.seconds))"]
            if let fetch = step.fetch { lines += fetchLines(fetch) }
            if step.outcome == .reused { lines.append("  not run: the source did not change, so the last parsed value stands") }
            if let warning = step.warning { lines.append("  ! emptied: \(warning.message)") }
            if let value = step.value { lines += valueLines(value, mask: mask) }
            if let entries = step.entries { lines += entryLines(entries, mask: mask) }
            return lines
        }
    }

    private static func fetchLines(_ fetch: PipelineTrace.Fetch) -> [String] {
        var lines = ["  " + (fetch.request ?? fetch.origin)]
        var facts: [String] = []
        if let status = fetch.status {
            // Foundation calls 200 "no error".
            let reason = status == 200 ? "OK" : HTTPURLResponse.localizedString(forStatusCode: status).capitalized
            facts.append("\(status) \(reason)")
        }
        if fetch.notModified {
            facts.append("not modified: the last parsed value is reused")
        } else {
            facts.append(counted(fetch.bytes, "byte", "bytes"))
            if let type = fetch.contentType { facts.append(type) }
        }
        lines.append("  " + facts.joined(separator: ", "))
        lines += fetch.pages.map { "    " + $0 }
        lines += fetch.warnings.map { "  ! warning: " + $0 }
        return lines
    }

    private static func valueLines(_ value: WidgetValue, mask: SecretMask) -> [String] {
        var lines = ["  " + value.shapeDescription]
        switch value {
        case .array(let items) where !items.isEmpty:
            let shown = shownCount(items.count, limit: textItems)
            for (index, item) in items.prefix(shown).enumerated() {
                lines += spread("    ", "[\(index)] ", item, mask: mask)
            }
            if items.count > shown { lines.append("    … \(counted(items.count - shown, "more item", "more items"))") }
        case .object(let object) where !object.isEmpty:
            let shown = shownCount(object.count, limit: textMembers)
            for (key, member) in object.prefix(shown) { lines += spread("    ", "\(key): ", member, mask: mask) }
            if object.count > shown { lines.append("    … \(counted(object.count - shown, "more member", "more members"))") }
        case .string, .number, .bool:
            lines.append(cut("    \(compact(value, mask: mask))", mask: mask))
        default:
            break
        }
        return lines
    }

    private static func entryLines(_ entries: [TimelineEntry], mask: SecretMask) -> [String] {
        var lines = ["  " + counted(entries.count, "entry", "entries")]
        let shown = shownCount(entries.count, limit: textItems)
        for entry in entries.prefix(shown) {
            var facts = ""
            if let relevance = entry.relevance { facts += "  relevance \(relevance.text)" }
            if let url = entry.url { facts += "  url \(url)" }
            let line = "    \(Timestamp.string(entry.date))  \(compact(entry.content, mask: mask))" + facts
            if line.count > lineWidth, case .object(let content) = entry.content, !content.isEmpty {
                // The date and its facts on a line of their own, then each key of the content.
                lines.append(cut("    \(Timestamp.string(entry.date))" + facts, mask: mask))
                for (key, member) in content { lines += spread("      ", "\(key): ", member, mask: mask, depth: 1) }
            } else {
                lines.append(cut(line, mask: mask))
            }
        }
        if entries.count > shown { lines.append("    … \(counted(entries.count - shown, "more entry", "more entries"))") }
        return lines
    }

    /// The lines of `value` after `label` (`[0] `, `title: `) at `indent`: one line when it fits in
    /// ``lineWidth``; else, for an object, the label alone and then every key on a line of its own, two
    /// spaces deeper, each spread the same way up to `depth` levels down and cut on its own after that;
    /// any other value is cut at the end of its line.
    private static func spread(_ indent: String, _ label: String, _ value: WidgetValue, mask: SecretMask, depth: Int = 0) -> [String] {
        let line = indent + label + compact(value, mask: mask)
        guard line.count > lineWidth, depth < 3, case .object(let object) = value, !object.isEmpty else {
            return [cut(line, mask: mask)]
        }
        var lines = [cut(indent + label.trimmingCharacters(in: .whitespaces), mask: mask)]
        for (key, member) in object { lines += spread(indent + "  ", "\(key): ", member, mask: mask, depth: depth + 1) }
        return lines
    }

    /// `value` as compact JSON, shortened as the text shows it.
    private static func compact(_ value: WidgetValue, mask: SecretMask) -> String {
        JSONWriter.string(shortened(value, items: textItems, members: textMembers, characters: 60, depth: 3, mask: mask))
    }

    /// How many of `count` lines to show with at most `limit`: all of them when only one would be left,
    /// since a line saying "1 more" takes the place of the line itself.
    private static func shownCount(_ count: Int, limit: Int) -> Int {
        count == limit + 1 ? count : min(count, limit)
    }

    /// `line` masked, then cut at ``lineWidth`` characters, with `…` where it was cut.
    private static func cut(_ line: String, mask: SecretMask) -> String {
        line.count > lineWidth ? mask.excerpt(line, limit: lineWidth - 1) : mask.apply(line)
    }

    // MARK: - JSON

    /// The trace for tools: `{"widget", "at", "stages": [...], "snapshot"}`, and `"notify"` (see
    /// ``NotifyTrace/json``) for a widget with rules.
    var json: WidgetValue {
        let stages = steps.map { step -> WidgetValue in
            var object: WidgetObject = [
                "stage": .string(step.stage.description), "kind": .string(step.kind.rawValue), "type": .string(step.type),
                "seconds": WidgetNumber((step.seconds * 1000).rounded() / 1000).map(WidgetValue.number) ?? .null,
                "outcome": .string(step.outcome.rawValue),
            ]
            if let fetch = step.fetch {
                var facts: WidgetObject = ["request": fetch.request.map(WidgetValue.string) ?? .null, "origin": .string(fetch.origin)]
                facts["status"] = fetch.status.map { .number(WidgetNumber($0)) } ?? .null
                facts["bytes"] = .number(WidgetNumber(fetch.bytes))
                facts["contentType"] = fetch.contentType.map(WidgetValue.string) ?? .null
                facts["notModified"] = .bool(fetch.notModified)
                if !fetch.pages.isEmpty { facts["pages"] = .array(fetch.pages.map(WidgetValue.string)) }
                if !fetch.warnings.isEmpty { facts["warnings"] = .array(fetch.warnings.map(WidgetValue.string)) }
                object["fetch"] = .object(facts)
            }
            if let value = step.value {
                object["shape"] = .string(value.shapeDescription)
                object["value"] = Self.shortened(value, items: 5, members: 20, characters: 200, depth: 4, mask: mask)
            }
            if let entries = step.entries {
                object["count"] = .number(WidgetNumber(entries.count))
                object["entries"] = .array(
                    entries.prefix(5).map { entry in
                        var shortened = entry
                        shortened.content = Self.shortened(entry.content, items: 5, members: 20, characters: 200, depth: 4, mask: mask)
                        return Snapshot.entryValue(shortened)
                    })
            }
            if let warning = step.warning { object["warning"] = .string(warning.message) }
            if step.outcome == .failed, let error { object["error"] = .string(error.message) }
            return .object(object)
        }
        var report: WidgetObject = [
            "widget": .string(widget), "at": .string(Timestamp.string(at)), "stages": .array(stages), "snapshot": snapshot.value,
        ]
        if let notify { report["notify"] = notify.json }
        return .object(report)
    }

    // MARK: - Shortening

    /// `value` with lists cut to their first `items`, objects to their first `members`, strings to their
    /// first `characters` (then `…`), and lists or objects deeper than `depth` given as their shape; strings
    /// are masked with `mask` before they are cut.
    static func shortened(
        _ value: WidgetValue, items: Int, members: Int, characters: Int, depth: Int, mask: SecretMask
    ) -> WidgetValue {
        switch value {
        case .string(let text):
            return .string(mask.excerpt(text, limit: characters))
        case .array(let elements) where !elements.isEmpty:
            guard depth > 0 else { return .string(value.shapeDescription) }
            return .array(
                elements.prefix(items).map {
                    shortened($0, items: items, members: members, characters: characters, depth: depth - 1, mask: mask)
                })
        case .object(let object) where !object.isEmpty:
            guard depth > 0 else { return .string(value.shapeDescription) }
            return .object(
                WidgetObject(
                    object.prefix(members).map { key, member in
                        (key, shortened(member, items: items, members: members, characters: characters, depth: depth - 1, mask: mask))
                    }))
        default:
            return value
        }
    }

    /// `42 ms`.
    private static func milliseconds(_ seconds: Double) -> String {
        "\(Int((seconds * 1000).rounded())) ms"
    }

    /// `1 entry`, `3 entries`.
    private static func counted(_ count: Int, _ one: String, _ many: String) -> String {
        "\(count) \(count == 1 ? one : many)"
    }
}
