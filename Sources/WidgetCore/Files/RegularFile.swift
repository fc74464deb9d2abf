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
