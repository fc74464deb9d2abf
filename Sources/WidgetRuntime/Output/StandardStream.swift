#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and standard error, written so that a closed, broken or full stream never stops
/// the process.
///
/// `FileHandle.write` traps when the descriptor is closed or its reader went away (`widgetd run 2>&1 |
/// head -1`); a daemon must outlive its terminal. Here a line that cannot be written is dropped: the
/// snapshots, the index and the metrics still say what the daemon does.
///
/// ```swift
/// StandardStream.error.write("widgetd running\n")
/// ```
public struct StandardStream: Sendable {
    let descriptor: Int32

    /// Standard output.
    public static let output = StandardStream(descriptor: 1)
    /// Standard error.
    public static let error = StandardStream(descriptor: 2)

    /// Writes all of `text`, retrying after interruptions and short writes; drops what cannot be
    /// written (closed or broken stream, full non-blocking pipe, full disk) without stopping.
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            guard let start = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, start + offset, buffer.count - offset)
                #else
                let written = Darwin.write(descriptor, start + offset, buffer.count - offset)
                #endif
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
