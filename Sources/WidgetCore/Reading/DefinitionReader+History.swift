import WidgetJSON
import WidgetLiquid

// MARK: - History

extension DefinitionReader.Session {
    /// Reports a template at `path` that reads `history.NAME` where the definition's `history` block
    /// has no series `NAME` (or there is no block): the series would always be missing, and each refresh
    /// or card that reads it would fail.
    ///
    /// - Parameter history: the definition's `history` block; `nil` when it has none.
    mutating func checkHistory(in template: Template, at path: ValuePath, history: HistoryDefinition?) {
        guard template.freeVariables.contains("history") else { return }
        let known = history?.values.map(\.name) ?? []
        // `size` is Liquid's count of an object's members, never a series.
        for name in template.members(of: "history").sorted() where name != "size" && !known.contains(name) {
            guard history != nil else {
                report(
                    path,
                    "the template reads history.\(name), but this definition keeps no history; add \"history\": {\"values\": {\"\(name)\": \"$.…\"}}, "
                        + "or remove history.\(name)")
                continue
            }
            let hint =
                Suggestion.hint(for: name, among: known)
                ?? "the series are \(known.map { "history.\($0)" }.joined(separator: ", ")); add \"\(name)\" to \"history\"'s \"values\""
            report(path, "the template reads history.\(name), which is not a series of \"history\"; \(hint)")
        }
    }
}
