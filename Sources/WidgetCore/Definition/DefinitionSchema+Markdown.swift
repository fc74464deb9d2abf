import Foundation
import WidgetJSON

// MARK: - The key table

extension DefinitionSchema {
    /// One row of the key table: a top-level key of a definition, its default and its meaning.
    public struct KeyRow: Sendable, Equatable {
        /// The key as written, between backticks (Markdown code).
        public var key: String
        /// `required`, the default as compact JSON between backticks (for `deadline`, `"1m"` as code), or
        /// `—` when the key states none.
        public var defaultValue: String
        /// The key's one-sentence summary.
        public var meaning: String

        /// Creates a row from its three cells.
        public init(key: String, defaultValue: String, meaning: String) {
            self.key = key
            self.defaultValue = defaultValue
            self.meaning = meaning
        }
    }

    /// The top-level keys of a definition, in ``DefinitionDocument``'s order, each with its default and
    /// meaning as its ``KeyDescription`` states them: what `widgetd schema --format markdown` prints, and
    /// what the documentation's key table is checked against.
    public static var keyRows: [KeyRow] {
        DefinitionDocument.shape.keys.map { key in
            KeyRow(key: "`\(key.name)`", defaultValue: defaultCell(key.description), meaning: key.description.summary)
        }
    }

    /// The default column's cell for a key: `required`, the default as compact JSON in backticks, or `—`.
    public static func defaultCell(_ description: KeyDescription) -> String {
        if description.isRequired { return "required" }
        guard let value = description.defaultValue else { return "—" }
        return "`\(JSONWriter.string(value))`"
    }

    /// ``keyRows`` as a Markdown table with the columns `key`, `default` and `meaning`.
    ///
    /// ```swift
    /// print(DefinitionSchema.keyTable)
    /// // | key | default | meaning |
    /// // |---|---|---|
    /// // | `$schema` | — | The JSON Schema this file follows, … |
    /// ```
    public static var keyTable: String {
        func cell(_ text: String) -> String {
            text.replacingOccurrences(of: "|", with: "\\|")
        }
        let rows = keyRows.map { "| \(cell($0.key)) | \(cell($0.defaultValue)) | \(cell($0.meaning)) |" }
        return (["| key | default | meaning |", "|---|---|---|"] + rows).joined(separator: "\n")
    }
}
