import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a service manager how the daemon is doing: systemd's `sd_notify` protocol, spoken directly.
///
/// When systemd starts a `Type=notify` service it sets `NOTIFY_SOCKET` (a socket path, or an abstract
/// socket name starting with `@`); the daemon sends one datagram per change of state:
///
/// | when | message |
/// |---|---|
/// | definitions loaded, index written, first wave about to start | `READY=1`, `MAINPID=`, `STATUS=` |
/// | a reload of the definitions begins (SIGHUP, a change in the folder) | `RELOADING=1`, `MONOTONIC_USEC=` |
/// | the reload is done | `READY=1`, `STATUS=` |
/// | a stop begins (SIGTERM, SIGINT) | `STOPPING=1` |
/// | every half `WATCHDOG_USEC` | `WATCHDOG=1` |
///
/// Without `NOTIFY_SOCKET` it does nothing. A message that cannot be sent is dropped: the service
/// manager's absence never stops the daemon.
///
/// ```swift
/// let notifier = ServiceNotifier(variables: ProcessInfo.processInfo.environment)
/// notifier.send(["READY=1", "STATUS=6 widgets"])
/// ```
public struct ServiceNotifier: Sendable {
    /// The socket's address: a path, or an abstract name starting with `@`; nil when not run by systemd.
    public let socket: String?
    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, when it is set for this process.
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `variables`; `pid` is this
    /// process's by default.
    public init(variables: [String: String], pid: Int32? = nil) {
        let pid = pid ?? getpid()
        let path = variables["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socket = path
        if path != nil, let text = variables["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
            variables["WATCHDOG_PID"].map({ Int32($0) == pid }) ?? true
        {
            watchdogInterval = .microseconds(Int64(microseconds / 2))
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether a service manager listens.
    public var isEnabled: Bool { socket != nil }

    /// Sends `assignments` (`READY=1`, …) as one datagram, one per line.
    ///
    /// - Returns: whether it was sent.
    @discardableResult
    public func send(_ assignments: [String]) -> Bool {
        guard let socket, let address = ServiceNotifier.address(socket) else { return false }
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array((assignments.joined(separator: "\n") + "\n").utf8)
        var storage = address.storage
        let sent = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { bytes in
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, socketAddress, address.length)
                }
            }
        }
        return sent == message.count
    }

    /// `MONOTONIC_USEC=…`, which systemd wants with `RELOADING=1`.
    public static func monotonicMicroseconds() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return "MONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000)"
    }

    /// The `sockaddr_un` of `socket` and its length; nil when the path does not fit.
    private static func address(_ socket: String) -> (storage: sockaddr_un, length: socklen_t)? {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socket.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            path.copyBytes(from: bytes)
        }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        // An abstract name's length counts exactly its bytes; a path's includes its terminating zero.
        return (storage, socklen_t(offset + bytes.count + (abstract ? 0 : 1)))
    }
}
