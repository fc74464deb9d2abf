import Dispatch
import Foundation
import Synchronization
public import WidgetCore
import WidgetJSON

/// The folder of definition files, `widgets.d/`: every `*.json` file directly inside it is a widget.
///
/// Loading reads every file and reports every problem of every file in one pass; good files load even
/// when others are bad.
///
/// ```swift
/// let result = DefinitionDirectory(path: "widgets.d").load(reader: DefinitionReader(registry: .builtIn))
/// ```
public struct DefinitionDirectory: Sendable {
    /// The folder as the user named it; diagnostics show files under this name.
    public let path: String

    /// The folder at `path`, relative to the current directory or absolute; nothing is read until
    /// loading.
    public init(path: String) {
        self.path = path
    }

    /// The largest definition file read (1 MiB): a bigger one is refused from its size, before it is
    /// parsed. Real definitions are a few kilobytes.
    public static let maximumFileSize = 1 << 20

    /// What loading found.
    public struct LoadResult: Sendable {
        /// The widgets of valid definitions, by id; empty after ``DefinitionDirectory/check(reader:)``.
        public var widgets: [WidgetPipeline]
        /// How many widgets are valid: `widgets.count` after ``DefinitionDirectory/load(reader:)``, and
        /// the count ``DefinitionDirectory/check(reader:)`` found, though it keeps none.
        public var widgetCount = 0
        /// Every problem, in file order.
        public var diagnostics: [Diagnostic]
        /// Every warning (a definition that runs, but not as written), in file order; see
        /// `DefinitionReader.Result.warnings`.
        public var warnings: [Diagnostic] = []
        /// The definition files read, as displayed.
        public var files: [String]
        /// The files with problems, so a daemon can keep running the last valid version of their widgets.
        public var failedFiles: Set<String>
    }

    /// The definition files, sorted by name.
    ///
    /// - Throws: `Diagnostic` when the folder does not exist or cannot be read.
    public func files() throws(Diagnostic) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Diagnostic(
                file: path, location: nil, path: nil,
                message: "no folder of definitions at this path; create it or pass the right one with --config"
            )
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw Diagnostic(file: path, location: nil, path: nil, message: "the folder cannot be read: \(error.localizedDescription)")
        }
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { display($0) }
    }

    private func display(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    private static func message(for error: any Error) -> String {
        switch error as? RegularFile.Failure {
        case .cannotOpen(let reason)?: "the file cannot be opened: \(reason); check its permissions"
        case .cannotRead(let reason)?: "the file cannot be read: \(reason)"
        case .notRegular(let kind)?: "this is \(kind), not a regular file; only definition files belong in this folder"
        case .symbolicLink(let link)?: "\(link) is a symbolic link where none was expected; check the folder"
        case .tooLarge(let limit)?:
            "the file is larger than \(limit) bytes, the limit for a definition; a definition describes a widget, its data belongs at its source"
        case nil: "the file cannot be read: \(error.localizedDescription)"
        }
    }

    /// Reads every definition file with `reader`.
    ///
    /// The files are read and checked on every core at once (each file is independent); their widgets
    /// and problems are then gathered in file order, so the result is the same as one by one.
    public func load(reader: DefinitionReader) -> LoadResult {
        load(reader: reader, keepingWidgets: true)
    }

    /// Checks every definition file with `reader`, as `widgetd validate` does: the problems, warnings and
    /// files of ``load(reader:)``, and the number of valid widgets in ``LoadResult/widgetCount``, but not
    /// the widgets themselves. Each is let go as soon as its file is checked, on the core that checked
    /// it, instead of all together once every file is read.
    public func check(reader: DefinitionReader) -> LoadResult {
        load(reader: reader, keepingWidgets: false)
    }

    private func load(reader: DefinitionReader, keepingWidgets: Bool) -> LoadResult {
        var result = LoadResult(widgets: [], diagnostics: [], files: [], failedFiles: [])
        let files: [String]
        do {
            files = try self.files()
        } catch {
            result.diagnostics.append(error)
            return result
        }
        result.files = files
        // Widgets written alike hold their common parts once (see `PipelinePool`).
        // Files written alike repeat their templates: each text is compiled once for the folder.
        let reads = Self.read(files, with: reader.sharingTemplates(), keepingWidgets: keepingWidgets, pool: PipelinePool())
        var owners: [String: String] = [:]
        for (file, (read, ids)) in zip(files, reads) {
            result.warnings += read.warnings
            var diagnostics = read.diagnostics
            // The positions of the file's widgets whose ids are free.
            var free: [Int] = []
            for (position, id) in ids.enumerated() {
                if let owner = owners[id] {
                    diagnostics.append(
                        Diagnostic(
                            file: file, location: SourceLocation(line: 1, column: 1), path: .root,
                            message:
                                "the widget id \"\(id)\" is already used by \(owner); rename this file or set a different \"id\""
                        ))
                } else {
                    free.append(position)
                }
            }
            if diagnostics.isEmpty {
                for position in free { owners[ids[position]] = file }
                result.widgetCount += free.count
                if keepingWidgets { result.widgets += free.map { read.widgets[$0] } }
            } else {
                result.failedFiles.insert(file)
                result.diagnostics += diagnostics
            }
        }
        return result
    }

    /// Reads and checks each of `files`, several at once; the results are in the order of `files`.
    ///
    /// Each worker takes the next file not yet taken, so a worker that gets less of the machine holds
    /// up nobody.
    ///
    /// Each result comes with the ids of its widgets; without `keepingWidgets`, its widgets are let go
    /// here, by the worker that made them, and otherwise share their common parts through `pool`.
    private static func read(
        _ files: [String], with reader: DefinitionReader, keepingWidgets: Bool, pool: PipelinePool
    ) -> [(result: DefinitionReader.Result, ids: [String])] {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, files.count / 8))
        let next = Mutex(0)
        let reads = Mutex([(result: DefinitionReader.Result, ids: [String])?](repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.withLock { next in
                    defer { next += 1 }
                    return next
                }
                guard index < files.count else { return }
                var read = Self.read(files[index], with: reader)
                let ids = read.widgets.map(\.id)
                read.widgets = keepingWidgets ? read.widgets.map(pool.share) : []
                reads.withLock { $0[index] = (read, ids) }
            }
        }
        return reads.withLock { $0.map { $0! } }
    }

    /// Reads and checks one file.
    private static func read(_ file: String, with reader: DefinitionReader) -> DefinitionReader.Result {
        let data: Data
        do {
            data = try RegularFile.read(file, maxBytes: maximumFileSize)
        } catch {
            return DefinitionReader.Result(
                widgets: [], diagnostics: [Diagnostic(file: file, location: nil, path: nil, message: message(for: error))])
        }
        return reader.read(data, file: file)
    }
}
