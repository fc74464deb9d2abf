#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that refuses connections for as long as this value lives: a socket bound to
/// it that never listens. Holding the port (rather than closing it) means no server another test
/// starts meanwhile can be given it.
///
/// ```swift
/// let closed = try #require(ClosedPort.make())
/// defer { withExtendedLifetime(closed) {} }
/// let url = URL(string: "http://127.0.0.1:\(closed.port)/json")!   // "the connection … was refused"
/// ```
public final class ClosedPort: Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    private init(port: Int, descriptor: Int32) {
        self.port = port
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// A port the system picks, held; `nil` when no socket could be opened.
    public static func make() -> ClosedPort? {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        return ClosedPort(port: Int(UInt16(bigEndian: address.sin_port)), descriptor: descriptor)
    }
}
