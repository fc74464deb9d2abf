import Foundation
import Synchronization
import WidgetCore
import WidgetJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every widget's state in one append-only file, `OUT/.state/_states.jsonl`: a line
/// `{"id":"news","state":{…}}` for each write; an id's last line wins.
///
/// A state file per widget cost a new file at every refresh (a temporary file created, flushed and
/// renamed), and creating files was the largest part of writing a thousand refreshes: appending a line
/// creates none. The journal is flushed once for every refresh recorded together (``sync(_:)``). Once
/// lines written over take more room than the latest ones (and the journal is past 1 MiB), the appending
/// writer rewrites it atomically with only each id's last line, so it stays within about twice the
/// states it holds.
///
/// A line that a crash cut short is ignored when the journal is read, and removed by ``repair(_:)``
/// (when a process takes the output folder's lock) before anything is appended after it. States written
/// by earlier versions, one file per widget, are still read for ids the journal does not hold.
///
/// The journal is never opened through a symbolic link: a link in its place is not read (no state),
/// and appending fails with an error naming the file.
enum StateJournal {
    /// The journal's name in the state folder (no widget id begins with `_`).
    static let fileName = "_states.jsonl"
    /// The journal is never compacted below this size.
    static let minimumCompactionSize = 1 << 20

    /// What this process knows of a journal it appends to: the size of each id's latest line, and their
    /// sum. Lines the journal held before the process first appended count as latest until a compaction
    /// says otherwise, so a compaction is never early.
    private struct Usage {
        var latestLine: [String: Int] = [:]
        var live = 0
        /// Where each id's latest line is, as far as this process knows: ``latest(id:path:)`` reads it
        /// alone.
        var positions: [String: (offset: Int, length: Int)] = [:]
        /// Whether ``positions`` covers every id in the journal (it was read or indexed whole since).
        var indexed = false
    }

    /// Each journal's usage, by path; appends and compactions hold it.
    private static let usages = Mutex<[String: Usage]>([:])

    /// Appends `state` as the latest of `id`, compacting the journal when it is due.
    ///
    /// - Throws: ``AtomicFileError`` naming the journal and the system's reason.
    static func append(id: String, state: WidgetValue, to path: String) throws(AtomicFileError) {
        var line = JSONWriter.data(["id": .string(id), "state": state])
        line.append(0x0A)
        try usages.withLock { (usages: inout [String: Usage]) throws(AtomicFileError) in
            let size = try appendLine(line, to: path)
            // Taken out, not copied: its dictionaries stay uniquely referenced, so updating them does not
            // copy a thousand entries at every append.
            var usage = usages.removeValue(forKey: path) ?? Usage(live: size - line.count)
            defer { usages[path] = usage }
            usage.live += line.count - (usage.latestLine[id] ?? 0)
            usage.latestLine[id] = line.count
            usage.positions[id] = (size - line.count, line.count)
            if size > minimumCompactionSize, size > 2 * usage.live {
                usage = try compact(path)
            }
        }
    }

    /// Each id's latest state in the journal at `path` (empty when there is none); lines that are not
    /// whole are skipped.
    static func read(_ path: String) -> [String: WidgetValue] {
        usages.withLock { usages in
            guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: path) else { return [:] }
            let lines = latestLines(in: data)
            remember(lines, of: data, path: path, in: &usages)
            var states: [String: WidgetValue] = [:]
            for (id, line) in lines {
                if let state = parse(line, id: id) { states[id] = state }
            }
            return states
        }
    }

    /// Finds where each id's latest line is, without reading any state, so that ``latest(id:path:)``
    /// reads one line per id afterwards.
    static func index(_ path: String) {
        usages.withLock { usages in
            let data = AtomicFile.contentsWithoutFollowingLinks(atPath: path) ?? Data()
            remember(latestLines(in: data), of: data, path: path, in: &usages)
        }
    }

    /// The latest state of `id` alone: its line read where this process last saw it written (`nil` at
    /// once when the journal was indexed and has no line for it), else the whole journal read.
    static func latest(id: String, path: String) -> WidgetValue? {
        let (known, indexed): ((offset: Int, length: Int)?, Bool) = usages.withLock { usages in
            (usages[path]?.positions[id], usages[path]?.indexed ?? false)
        }
        if known == nil, indexed { return nil }
        if let known {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                var line = Data(count: known.length)
                let count = line.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, known.length, off_t(known.offset)) }
                if count == known.length, let state = parse(line, id: id) { return state }
            }
        }
        return read(path)[id]
    }

    /// Flushes the journal at `path` to disk, if it exists.
    static func sync(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Cuts off a last line that a crash left unfinished, so that the next line appended starts a line
    /// of its own. Only the process holding the output folder's lock may call it.
    static func repair(_ path: String) {
        let descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return }
        // Look back from the end for the last newline, a block at a time.
        var end = Int(status.st_size)
        var last: UInt8 = 0
        guard pread(descriptor, &last, 1, off_t(end - 1)) == 1, last != 0x0A else { return }
        var block = [UInt8](repeating: 0, count: 4096)
        var keep = 0
        search: while end > 0 {
            let start = max(0, end - block.count)
            let count = block.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, end - start, off_t(start)) }
            guard count == end - start else { return }
            for index in stride(from: count - 1, through: 0, by: -1) where block[index] == 0x0A {
                keep = start + index + 1
                break search
            }
            end = start
        }
        if ftruncate(descriptor, off_t(keep)) == 0 { fsync(descriptor) }
    }

    // MARK: - Inside

    /// Appends `line` in one write; returns the journal's size after it.
    private static func appendLine(_ line: Data, to path: String) throws(AtomicFileError) -> Int {
        let descriptor = try AtomicFile.openWithoutFollowingLinks(path, O_WRONLY | O_APPEND | O_CREAT, action: "cannot open the journal")
        defer { close(descriptor) }
        if let code = AtomicFile.writeAll(line, to: descriptor) {
            throw AtomicFileError(path, "cannot append to the journal", errno: code)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw AtomicFileError(path, "cannot measure the journal", errno: errno) }
        return Int(status.st_size)
    }

    /// Replaces the journal by one line per id, its last; returns what it then holds.
    private static func compact(_ path: String) throws(AtomicFileError) -> Usage {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: path) else { return Usage() }
        let lines = latestLines(in: data)
        var usage = Usage(indexed: true)
        var compacted = Data()
        compacted.reserveCapacity(lines.values.reduce(0) { $0 + $1.count + 1 })
        for id in lines.keys.sorted() {
            usage.positions[id] = (compacted.count, lines[id]!.count)
            compacted.append(lines[id]!)
            compacted.append(0x0A)
            usage.latestLine[id] = lines[id]!.count + 1
        }
        usage.live = compacted.count
        try AtomicFile.write(compacted, to: URL(fileURLWithPath: path))
        return usage
    }

    /// Each id's latest whole line (a slice of `data`). A line is read only as far as its id when it
    /// begins as this journal writes lines (`{"id":"…",`); a line that does not parse is skipped, and so
    /// is an end without a newline (an append under way, or cut short).
    private static func latestLines(in data: Data) -> [String: Data] {
        var lines: [String: Data] = [:]
        let prefix = Array(#"{"id":""#.utf8)
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return [:] }
        for line in data[..<lastNewline].split(separator: 0x0A, omittingEmptySubsequences: true) {
            var id: String?
            if line.starts(with: prefix) {
                let start = line.startIndex + prefix.count
                if let end = line[start...].firstIndex(where: { $0 == 0x22 || $0 == 0x5C }), line[end] == 0x22 {
                    id = String(decoding: line[start..<end], as: UTF8.self)
                }
            }
            if id == nil { id = (try? JSONReader.read(line, maximumDepth: JSONReader.savedFileDepth))?["id"]?.string }
            guard let id else { continue }
            lines[id] = line
        }
        return lines
    }

    /// The state in a journal line, when it is whole and belongs to `id`.
    private static func parse(_ line: Data, id: String) -> WidgetValue? {
        guard let value = try? JSONReader.read(line, maximumDepth: JSONReader.savedFileDepth), value["id"]?.string == id,
            let state = value["state"],
            case .object = state
        else { return nil }
        return state
    }

    /// Records where `lines` (slices of `data`, the whole journal) are: the journal is indexed.
    private static func remember(_ lines: [String: Data], of data: Data, path: String, in usages: inout [String: Usage]) {
        var usage = usages[path] ?? Usage(live: data.count)
        usage.positions = [:]
        for (id, line) in lines { usage.positions[id] = (line.startIndex - data.startIndex, line.count) }
        usage.indexed = true
        usages[path] = usage
    }
}
