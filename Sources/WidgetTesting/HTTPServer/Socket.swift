#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket calls of ``TestHTTPServer``, the same on Linux and macOS.
///
/// Every socket is non-blocking, and every wait is a `poll` that also watches the server's wake pipe, so
/// that stopping the server ends each of its threads at once, whatever it was waiting for.
enum Socket {
    /// What ended a wait.
    enum Wait {
        /// The socket is ready.
        case ready
        /// The server is stopping.
        case stopping
        /// The time ran out.
        case timedOut
    }

    /// A TCP socket listening on 127.0.0.1 on a port the system picks, and that port.
    static func makeListener() throws(TestHTTPServerError) -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestHTTPServerError(message: "the test server could not open a socket: \(errorText())") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
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
        guard bound, listen(descriptor, 128) == 0 else {
            let text = errorText()
            close(descriptor)
            throw TestHTTPServerError(message: "the test server could not listen on 127.0.0.1: \(text)")
        }
        setNonBlocking(descriptor)
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// What accepting a connection gave.
    enum Accepted {
        /// A connection, non-blocking.
        case connection(Int32)
        /// None is waiting (any more).
        case none
        /// The system refused (out of descriptors or memory): try again a little later.
        case failed
    }

    /// A connection waiting on `listener`, if any.
    static func acceptConnection(_ listener: Int32) -> Accepted {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor >= 0 {
                setNonBlocking(descriptor)
                var yes: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                #if canImport(Darwin)
                setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return .connection(descriptor)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return .none
            default: return .failed
            }
        }
    }

    /// A pipe whose read end turns readable, for good, once one byte is written to it.
    static func wakePipe() throws(TestHTTPServerError) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw TestHTTPServerError(message: "the test server could not open a pipe: \(errorText())")
        }
        setNonBlocking(descriptors[0])
        setNonBlocking(descriptors[1])
        return (descriptors[0], descriptors[1])
    }

    static func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Waits until `descriptor` is ready for `events` (`POLLIN`, `POLLOUT`), the wake pipe `wake` turns
    /// readable, or `timeout` seconds pass (never, when `nil`).
    static func wait(_ descriptor: Int32, for events: Int16, wake: Int32, timeout: Double? = nil) -> Wait {
        let deadline = timeout.map { now() + max(0, $0) }
        while true {
            var descriptors = [
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                pollfd(fd: descriptor, events: events, revents: 0),
            ]
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = deadline - now()
                if remaining <= 0 { return .timedOut }
                milliseconds = Int32(min(remaining * 1000, 3_600_000).rounded(.up))
            }
            // Without a socket (-1), poll watches the wake pipe alone: a pause.
            let count = poll(&descriptors, descriptor < 0 ? 1 : 2, milliseconds)
            if count < 0 {
                if errno == EINTR { continue }
                return .stopping
            }
            if descriptors[0].revents != 0 { return .stopping }
            if count > 0, descriptors[1].revents != 0 { return .ready }
        }
    }

    /// Waits `seconds`, or less when the server stops; `false` when it stopped.
    static func pause(_ seconds: Double, wake: Int32) -> Bool {
        wait(-1, for: 0, wake: wake, timeout: seconds) == .timedOut
    }

    /// Seconds on a monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The flags of every `send`: no `SIGPIPE` for a peer that hung up (Darwin sets it on the socket).
    static var sendFlags: Int32 {
        #if canImport(Glibc)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// The text of `errno`.
    static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
