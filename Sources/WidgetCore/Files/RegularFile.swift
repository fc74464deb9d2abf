public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads regular files only, with a size cap, without ever blocking on what is not a file.
///
/// A FIFO with no writer, a device, a socket or a folder is refused before any read (the open is
/// non-blocking), and a file over the cap is refused from its size before it is read, so neither a
/// definition nor a `path` source can hold a refresh or fill memory.
///
/// ```swift
/// let data = try RegularFile.read("widgets.d/news.json", maxBytes: 1 << 20)
/// ```
public enum RegularFile {
    /// Why a file was not read; callers put it in their own words (which option to change).
    public enum Failure: Error, Sendable, Equatable {
        /// The file cannot be opened (`reason`: "no such file", "permission denied", …).
        case cannotOpen(reason: String)
        /// Reading failed part way.
        case cannotRead(reason: String)
        /// It is not a regular file: `kind` is "a folder", "a FIFO", "a socket", "a device" or
        /// "not a regular file".
        case notRegular(kind: String)
        /// It holds more than `limit` bytes.
        case tooLarge(limit: Int)
        /// A symbolic link stands at `path`, the file itself or a folder on its way, where
        /// ``readWithoutLinks(_:maxBytes:)`` follows none.
        case symbolicLink(path: String)
    }

    /// Reads up to `maxBytes` of the regular file at `path`, in chunks, stopping with `CancellationError`
    /// when the calling task is cancelled.
    ///
    /// - Throws: ``Failure``, or `CancellationError`.
    public static func read(_ path: String, maxBytes: Int) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            throw Failure.cannotOpen(reason: errno == ENOENT ? "no such file" : Self.reason(errno))
        }
        defer { close(descriptor) }
        return try read(descriptor: descriptor, maxBytes: maxBytes)
    }

    /// Reads up to `maxBytes` of the regular file at the absolute `path` without following any symbolic
    /// link: each folder on the way is opened relative to the one before it with `O_NOFOLLOW`, and so is
    /// the file, so the bytes read come from exactly the path given.
    ///
    /// Give it a path with its links already resolved (``canonicalPath(_:)``) and checked: if anything on
    /// the way is swapped for a link after the check, the read fails with ``Failure/symbolicLink(path:)``
    /// instead of reading where the link points.
    ///
    /// ```swift
    /// if let real = RegularFile.canonicalPath("widgets.d/data/art.json") {
    ///     let data = try RegularFile.readWithoutLinks(real, maxBytes: 1 << 20)
    /// }
    /// ```
    ///
    /// - Throws: ``Failure``, or `CancellationError`.
    public static func readWithoutLinks(_ path: String, maxBytes: Int) throws -> Data {
        guard path.hasPrefix("/") else { throw Failure.cannotOpen(reason: "the path is not absolute") }
        let components = path.split(separator: "/").map(String.init)
        guard let name = components.last else { throw Failure.notRegular(kind: "a folder") }
        var folder = open("/", folderFlags)
        guard folder >= 0 else { throw Failure.cannotOpen(reason: Self.reason(errno)) }
        defer { close(folder) }
        var walked = ""
        for component in components.dropLast() {
            walked += "/" + component
            let next = openat(folder, component, folderFlags | O_NOFOLLOW)
            guard next >= 0 else { throw Self.openFailure(errno, at: walked, in: folder, name: component) }
            close(folder)
            folder = next
        }
        let descriptor = openat(folder, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW)
        guard descriptor >= 0 else { throw Self.openFailure(errno, at: path, in: folder, name: name) }
        defer { close(descriptor) }
        return try read(descriptor: descriptor, maxBytes: maxBytes)
    }

    /// `path` made absolute, with `.`, `..` and every symbolic link resolved (`realpath(3)`), or `nil`
    /// when something on the way does not exist or cannot be searched.
    public static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// How folders on the way are opened: only to search them where the system allows it.
    #if os(Linux)
    // O_PATH (Linux's 010000000, which Glibc's module does not export): no read permission needed.
    private static let folderFlags: Int32 = 0o10000000 | O_DIRECTORY | O_CLOEXEC
    #else
    private static let folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
    #endif

    /// The failure for an `openat` of `name` in `folder` that set `code`; a link there is named as one
    /// whatever the system's errno for it (`ELOOP`, or `ENOTDIR` for a folder opened with `O_PATH`).
    private static func openFailure(_ code: Int32, at path: String, in folder: Int32, name: String) -> Failure {
        var status = stat()
        if code == ELOOP || code == ENOTDIR || code == EMLINK,
            fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFLNK
        {
            return .symbolicLink(path: path)
        }
        return .cannotOpen(reason: code == ENOENT ? "no such file" : Self.reason(code))
    }

    /// Reads up to `maxBytes` from the open `descriptor`, which must be a regular file.
    private static func read(descriptor: Int32, maxBytes: Int) throws -> Data {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure.cannotRead(reason: Self.reason(errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw Failure.notRegular(kind: "a folder")
            case S_IFIFO: throw Failure.notRegular(kind: "a FIFO")
            case S_IFSOCK: throw Failure.notRegular(kind: "a socket")
            case S_IFCHR, S_IFBLK: throw Failure.notRegular(kind: "a device")
            default: throw Failure.notRegular(kind: "not a regular file")
            }
        }
        if Int(status.st_size) > maxBytes { throw Failure.tooLarge(limit: maxBytes) }
        var data = Data(capacity: Int(status.st_size))
        // Sized to the file (one read and the end) up to 256 KiB, and not zeroed: a definition of a few
        // hundred bytes must not cost a fresh 256 KiB mapping, every page of it touched.
        let chunkSize = min(256 * 1024, max(4096, Int(status.st_size) + 1))
        var chunk = [UInt8](unsafeUninitializedCapacity: chunkSize) { _, initialized in initialized = chunkSize }
        while true {
            if Task.isCancelled { throw CancellationError() }
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure.cannotRead(reason: Self.reason(errno))
            }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
            // The file may have grown since it was measured.
            if data.count > maxBytes { throw Failure.tooLarge(limit: maxBytes) }
        }
        return data
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// `read(2)`, named apart from ``RegularFile/read(_:maxBytes:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
