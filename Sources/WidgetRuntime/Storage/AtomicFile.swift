public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a reader sees either the old or the new complete content, even across a crash
/// or a power cut.
///
/// A write goes to a temporary file in the same folder (`.NAME.tmp-RANDOM`), is flushed to disk with
/// `fsync`, given mode 0644, renamed over the target, and the folder is flushed too so the rename itself
/// survives a power cut. Temporary files a crash left behind are removed by ``removeLeftovers(in:)``.
///
/// Many files written into one folder together can share that last step: write each with
/// `syncsFolder: false`, then call ``syncFolder(_:)`` once. Each file is still either old or new after a
/// crash; only the renames since the folder's last flush may be lost to a power cut, as if those writes
/// had not happened yet.
///
/// A file that can be made again from others (the gallery's cards and pages, made from the snapshots)
/// may skip the flush with `syncsData: false`: it is still replaced whole by a rename, so no reader and
/// no crash of the process ever sees it half-written, but after a power cut it may be empty until it is
/// written again.
///
/// ```swift
/// try AtomicFile.write(data, to: out.appendingPathComponent("jotd.json"))
/// ```
public enum AtomicFile {
    /// The prefix of temporary files, after the leading dot and the target's name.
    static let temporaryMarker = ".tmp-"

    /// Replaces the file at `url` with `data`.
    ///
    /// - Parameters:
    ///   - data: The file's new content.
    ///   - url: The file to replace (or create).
    ///   - mode: The permission bits the file gets.
    ///   - syncsFolder: Whether the folder is flushed after the rename; pass `false` when the caller
    ///     flushes it once after several writes (``syncFolder(_:)``).
    ///   - syncsData: Whether the content is flushed to disk before the rename; pass `false` only for a
    ///     file made again from others, which a power cut may leave empty.
    /// - Throws: ``AtomicFileError`` naming the file and the system's reason.
    public static func write(
        _ data: Data, to url: URL, mode: mode_t = 0o644, syncsFolder: Bool = true, syncsData: Bool = true
    ) throws(AtomicFileError) {
        try write(data, toPath: url.path, mode: mode, syncsFolder: syncsFolder, syncsData: syncsData)
    }

    /// Replaces the file at `path` with `data`, as ``write(_:to:mode:syncsFolder:syncsData:)`` does.
    /// (Paths as text: building URLs was a measurable part of writing a thousand small files.)
    public static func write(
        _ data: Data, toPath path: String, mode: mode_t = 0o644, syncsFolder: Bool = true, syncsData: Bool = true
    ) throws(AtomicFileError) {
        let temporary = try writeTemporary(data, forPath: path, mode: mode)
        if syncsData, fsync(temporary.descriptor) != 0 {
            let failure = AtomicFileError(path, "cannot flush to disk", errno: errno)
            temporary.discard()
            throw failure
        }
        close(temporary.descriptor)
        try temporary.rename()
        if syncsFolder { syncFolder(atPath: temporary.folder) }
    }

    /// A file's new content in its temporary file beside it, written but neither flushed nor renamed:
    /// ``write(_:toPath:mode:syncsFolder:syncsData:)`` flushes and renames it at once, a `GroupCommit`
    /// together with others.
    struct Temporary: Sendable {
        /// The temporary file, still open for writing.
        let descriptor: Int32
        /// The temporary file's path, `FOLDER/.NAME.tmp-RANDOM`.
        let path: String
        /// The file it replaces.
        let target: String
        /// The folder of both (`/` at the root).
        let folder: String

        /// Renames the (closed) temporary file over its target; removes it when that fails.
        ///
        /// - Throws: ``AtomicFileError`` naming the target.
        func rename() throws(AtomicFileError) {
            #if canImport(Glibc)
            let renamed = Glibc.rename(path, target)
            #else
            let renamed = Darwin.rename(path, target)
            #endif
            guard renamed != 0 else { return }
            let code = errno
            unlink(path)
            throw AtomicFileError(target, "cannot replace the file", errno: code)
        }

        /// Closes and removes the temporary file: its write failed.
        func discard() {
            close(descriptor)
            unlink(path)
        }
    }

    /// Writes `data` with `mode` to a new temporary file beside `path`, and leaves it open.
    ///
    /// - Throws: ``AtomicFileError`` naming `path`; no temporary file is left then.
    static func writeTemporary(_ data: Data, forPath path: String, mode: mode_t = 0o644) throws(AtomicFileError) -> Temporary {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporaryPath = "\(folder)/.\(name)\(temporaryMarker)\(UInt32.random(in: .min ... .max))"
        // O_EXCL refuses a link at the temporary path, and the rename replaces one at `path`: nothing is
        // written through a link.
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw AtomicFileError(path, "cannot create a temporary file", errno: errno) }
        let temporary = Temporary(descriptor: descriptor, path: temporaryPath, target: path, folder: folder.isEmpty ? "/" : folder)
        var failure: AtomicFileError?
        if let code = writeAll(data, to: descriptor) { failure = AtomicFileError(path, "cannot write", errno: code) }
        if failure == nil, fchmod(descriptor, mode) != 0 { failure = AtomicFileError(path, "cannot set the file mode", errno: errno) }
        if let failure {
            temporary.discard()
            throw failure
        }
        return temporary
    }

    /// Flushes a folder's entries (a rename) to disk.
    public static func syncFolder(_ folder: URL) {
        syncFolder(atPath: folder.path)
    }

    /// Flushes the folder at `folder`'s entries to disk.
    static func syncFolder(atPath folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// The content of the regular file at `path`, or `nil` when there is none, it cannot be read, or it is
    /// not a regular file — a symbolic link is not followed, and a FIFO is not waited on.
    static func contentsWithoutFollowingLinks(atPath path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var data = Data(count: Int(status.st_size))
        var filled = 0
        while true {
            if filled == data.count { data.count += max(4096, data.count / 2) }
            let count = data.withUnsafeMutableBytes { raw in
                systemRead(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        return data
    }

    /// Opens the file at `path` with `flags` and `O_NOFOLLOW`, for a file written in place (the state
    /// journal): a symbolic link there is an error naming the file, never written through.
    ///
    /// - Throws: ``AtomicFileError``; `action` says what failed otherwise.
    static func openWithoutFollowingLinks(_ path: String, _ flags: Int32, action: String) throws(AtomicFileError) -> Int32 {
        let descriptor = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor < 0 else { return descriptor }
        let code = errno
        var status = stat()
        if code == ELOOP || code == EMLINK, lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            throw AtomicFileError(path, reason: "it is a symbolic link, which widgetd does not follow; remove it")
        }
        throw AtomicFileError(path, action, errno: code)
    }

    /// Deletes temporary files left in `folder` by writes that a crash interrupted; returns their names.
    @discardableResult
    public static func removeLeftovers(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var removed: [String] = []
        for name in names where name.hasPrefix(".") && name.contains(temporaryMarker) {
            if unlink(folder.appendingPathComponent(name).path) == 0 { removed.append(name) }
        }
        return removed
    }

    /// Writes all of `data` to `descriptor`, again after an interruption; the `errno` of a failure, or `nil`.
    static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }

    @inline(__always)
    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
        #else
        return Darwin.read(descriptor, buffer, count)
        #endif
    }

    @inline(__always)
    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.write(descriptor, buffer, count)
        #else
        return Darwin.write(descriptor, buffer, count)
        #endif
    }
}

/// A file that could not be written atomically.
public struct AtomicFileError: Error, Sendable, CustomStringConvertible {
    /// The path of the file that was to be written.
    public var path: String
    /// The step that failed and the system's message, e.g. `cannot flush to disk: No space left on device`.
    public var reason: String
    /// The system's error number, when a system call failed.
    var code: Int32?

    init(_ path: String, _ action: String, errno code: Int32) {
        self.path = path
        self.code = code
        reason = "\(action): \(String(cString: strerror(code)))"
    }

    /// Whether the file's folder does not exist.
    var isMissingFolder: Bool { code == ENOENT }

    init(_ path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "Cannot write \(path) safely: \(reason)." }
}
