import Foundation
import Testing
import WidgetCore
import WidgetTestSupport

/// The documentation's tables of a definition's keys are copies of the model's: every Markdown table whose
/// header starts `| key | default |`, in the README and in the DocC articles, lists exactly the keys of
/// ``DefinitionDocument`` in its order, each with the default its description declares — the first two
/// columns of `widgetd schema --format markdown`. The third column, the meaning, is the page's own.
struct DefinitionKeyTableTests {
    /// One table of a Markdown file: where its header is, and its rows' cells.
    struct Table {
        var file: String
        var line: Int
        var rows: [[String]]
    }

    /// The files that document the format: the README and every DocC article.
    static func documentationFiles() throws -> [URL] {
        let root = Widgetd.packageRoot
        var files = [root.appendingPathComponent("README.md")]
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalogue = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            let articles = (try? FileManager.default.contentsOfDirectory(atPath: catalogue.path)) ?? []
            files += articles.filter { $0.hasSuffix(".md") }.sorted().map { catalogue.appendingPathComponent($0) }
        }
        return files
    }

    /// The cells of a Markdown table row, `\|` kept as a `|` inside its cell.
    static func cells(_ line: String) -> [String] {
        let inner = line.trimmingCharacters(in: .whitespaces).dropFirst().dropLast()
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in inner {
            if escaped {
                cell.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
        }
        cells.append(cell.trimmingCharacters(in: .whitespaces))
        return cells
    }

    /// Every table of `text` whose header starts with the columns `key` and `default`.
    static func keyTables(in text: String, file: String) -> [Table] {
        let lines = text.components(separatedBy: "\n")
        var tables: [Table] = []
        var index = 0
        while index < lines.count {
            let header = cells(lines[index])
            guard lines[index].hasPrefix("|"), header.count >= 2, header[0] == "key", header[1] == "default" else {
                index += 1
                continue
            }
            var table = Table(file: file, line: index + 1, rows: [])
            index += 2  // the header and the line under it
            while index < lines.count, lines[index].hasPrefix("|") {
                table.rows.append(cells(lines[index]))
                index += 1
            }
            tables.append(table)
        }
        return tables
    }

    static func allKeyTables() throws -> [Table] {
        try documentationFiles().flatMap { url in
            try keyTables(in: String(contentsOf: url, encoding: .utf8), file: url.lastPathComponent)
        }
    }

    @Test func theDefinitionsArticleHasTheDefinitionKeyTable() throws {
        let tables = try Self.allKeyTables()
        #expect(tables.contains { $0.file == "Definitions.md" })
    }

    @Test func everyKeyTableListsTheModelsKeysInItsOrder() throws {
        let expected = DefinitionSchema.keyRows.map(\.key)
        #expect(expected.count == DefinitionDocument.keys.count)
        for table in try Self.allKeyTables() {
            let listed = table.rows.map { $0.first ?? "" }
            let missing = expected.filter { !listed.contains($0) }
            let unknown = listed.filter { !expected.contains($0) }
            #expect(missing == [], "\(table.file):\(table.line): keys of the model missing from the table")
            #expect(unknown == [], "\(table.file):\(table.line): keys the model does not have")
            #expect(listed == expected, "\(table.file):\(table.line): the keys are not in the model's order")
        }
    }

    @Test func everyKeyTableStatesTheDeclaredDefaults() throws {
        let declared = Dictionary(uniqueKeysWithValues: DefinitionSchema.keyRows.map { ($0.key, $0.defaultValue) })
        for table in try Self.allKeyTables() {
            for row in table.rows {
                let key = row.first ?? ""
                let written = row.count > 1 ? row[1] : ""
                #expect(written == declared[key], "\(table.file):\(table.line): the default of \(key)")
                #expect(row.count == 3 && !row[2].isEmpty, "\(table.file):\(table.line): \(key) says what it means")
            }
        }
    }

    @Test func theDefaultColumnSaysRequiredTheDefaultAsJSONOrADash() {
        let rows = Dictionary(uniqueKeysWithValues: DefinitionSchema.keyRows.map { ($0.key, $0.defaultValue) })
        #expect(rows["`source`"] == "required")
        #expect(rows["`parser`"] == "`\"json\"`")
        #expect(rows["`schedule`"] == "`{\"every\":\"1h\"}`")
        #expect(rows["`deadline`"] == "`\"1m\"`")
        #expect(rows["`title`"] == "—")
        #expect(rows["`fallback`"] == "—")
    }

    @Test func schemaPrintsTheKeyTableAsMarkdown() async throws {
        let output = try await Widgetd.run(["schema", "--format", "markdown"])
        #expect(output.status == 0)
        #expect(output.stdout == DefinitionSchema.keyTable + "\n")
        let printed = Self.keyTables(in: output.stdout, file: "stdout")
        #expect(printed.count == 1)
        #expect(
            printed.first?.rows.map { [$0[0], $0[1], $0[2]] } == DefinitionSchema.keyRows.map { [$0.key, $0.defaultValue, $0.meaning] })
    }

    @Test func schemaRefusesAnUnknownFormat() async throws {
        let output = try await Widgetd.run(["schema", "--format", "yaml"])
        #expect(output.status == 2)
        #expect(output.stderrLines.first == "Error: --format takes 'json' or 'markdown', not 'yaml'")
    }
}
