public import Foundation
import Synchronization
public import WidgetJSON

/// Partials read from files: `{% render 'card' %}` renders `FOLDER/card.liquid`.
///
/// A name is letters, digits, `_`, `-` and `.`, with `/` between folder names; it never leaves the folder
/// (`..`, a leading `/` and hidden names are refused). Each file is compiled the first time it is rendered
/// and kept, shared by every folder value, until the file changes (its size or modification time); a file
/// of more than 256 KiB is refused.
///
/// ```swift
/// var scope = TemplateScope(globals: ["coins": coins])
/// scope.partials = TemplatePartialFolder(URL(filePath: "widgets.d/partials"))
/// try Template("{% for c in coins %}{% render 'coin', coin: c %}{% endfor %}").renderString(scope)
/// ```
public struct TemplatePartialFolder: TemplatePartials {
    /// The folder the partials are read from.
    public let folder: URL
    /// The filters partials are compiled with.
    public let filters: FilterRegistry

    /// A compiled file, with what it was compiled from.
    private struct Compiled {
        var size: Int
        var modified: Date
        var template: Template
    }

    /// Every partial compiled, by file path.
    private static let compiled = Mutex<[String: Compiled]>([:])

    /// The largest partial file read, in bytes.
    public static let maximumBytes = 256 * 1024

    /// Partials from `folder`, compiled with `filters`.
    public init(_ folder: URL, filters: FilterRegistry = .standard) {
        self.folder = folder
        self.filters = filters
    }

    /// The file a partial name stands for, or `nil` when the name is not allowed.
    public func file(named name: String) -> URL? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 200, !parts.isEmpty else { return nil }
        for part in parts {
            guard let first = part.first, first != ".",
                part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) })
            else { return nil }
        }
        return folder.appending(path: name + ".liquid")
    }

    /// The partial called `name`, compiled.
    ///
    /// - Throws: `ExpressionError` naming the file when the name is not allowed, the file is missing or
    ///   too large, or it is not a valid template (with the line and column inside it).
    public func template(named name: String) throws(ExpressionError) -> Template {
        guard let file = file(named: name) else {
            throw ExpressionError(
                "'\(name)' is not a partial name",
                hint: "name a file in the partials folder without its .liquid extension: letters, digits, _, - and / only")
        }
        let data: Data
        let size: Int
        let modified: Date
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            size = attributes[.size] as? Int ?? 0
            modified = attributes[.modificationDate] as? Date ?? .distantPast
            if let known = Self.compiled.withLock({ $0[file.path] }), known.size == size, known.modified == modified {
                return known.template
            }
            if size > Self.maximumBytes {
                throw ExpressionError(
                    "the partial \(file.path) has \(size) bytes, more than \(Self.maximumBytes)",
                    hint: "split it into smaller partials")
            }
            data = try Data(contentsOf: file)
        } catch let error as ExpressionError {
            throw error
        } catch {
            throw ExpressionError(
                "there is no partial '\(name)': \(file.path) cannot be read", hint: "create \(file.lastPathComponent) in \(folder.path)")
        }
        guard let source = String(data: data, encoding: .utf8) else {
            throw ExpressionError("the partial \(file.path) is not UTF-8 text")
        }
        let template: Template
        do {
            template = try Template(source, filters: filters)
        } catch {
            let place = error.column.map { TemplatePartialFolder.lineAndColumn(of: $0, in: source) } ?? ""
            throw ExpressionError("in the partial \(file.path)\(place): \(error.reason)", hint: error.hint)
        }
        Self.compiled.withLock { $0[file.path] = Compiled(size: size, modified: modified, template: template) }
        return template
    }

    /// `:LINE:COLUMN` of a 1-based scalar offset.
    static func lineAndColumn(of offset: Int, in source: String) -> String {
        var line = 1
        var column = 1
        for (index, scalar) in source.unicodeScalars.enumerated() where index < offset - 1 {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return ":\(line):\(column)"
    }
}
