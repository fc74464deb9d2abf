import Foundation
import Testing
import WidgetCommands
import WidgetRuntime
import WidgetTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sd_notify protocol, over a real Unix datagram socket as systemd listens on one.
struct ServiceNotifierTests {
    /// A bound Unix datagram socket: what systemd offers as `NOTIFY_SOCKET`.
    final class Listener: Sendable {
        let descriptor: Int32
        let path: String

        /// Binds `path`, or the abstract name `path` without its leading `@`.
        init(path: String) throws {
            self.path = path
            #if canImport(Glibc)
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            #else
            descriptor = socket(AF_UNIX, SOCK_DGRAM, 0)
            #endif
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(path.utf8)
            let abstract = bytes.first == UInt8(ascii: "@")
            if abstract { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            guard descriptor >= 0, bound == 0 else {
                throw ToolError(description: "cannot bind \(path): \(String(cString: strerror(errno)))")
            }
        }

        deinit {
            close(descriptor)
            if !path.hasPrefix("@") { unlink(path) }
        }

        /// The next datagram, waiting at most a minute (a busy machine is slow; a healthy one answers
        /// in milliseconds); nil when none came.
        func receive() -> String? {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 60_000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
        }

        /// The next datagram that is not a watchdog ping; counts the pings it skips.
        func receiveState(pings: inout Int) -> String? {
            while let message = receive() {
                if message == "WATCHDOG=1\n" {
                    pings += 1
                    continue
                }
                return message
            }
            return nil
        }
    }

    @Test func watchdogIntervalIsHalfOfWatchdogUsecForThisProcessOnly() {
        let notifier = ServiceNotifier(variables: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000"], pid: 42)
        #expect(notifier.isEnabled)
        #expect(notifier.watchdogInterval == .seconds(15))
        let other = ServiceNotifier(variables: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 42)
        #expect(other.watchdogInterval == nil)
        let mine = ServiceNotifier(variables: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], pid: 42)
        #expect(mine.watchdogInterval == .seconds(15))
    }

    @Test func withoutNotifySocketNothingIsSent() {
        let notifier = ServiceNotifier(variables: ["WATCHDOG_USEC": "1000000"])
        #expect(!notifier.isEnabled)
        #expect(notifier.watchdogInterval == nil)
        #expect(!notifier.send(["READY=1"]))
    }

    @Test func sendsToAnAbstractSocket() throws {
        let name = "@widgetd-test-\(UUID().uuidString)"
        let listener = try Listener(path: name)
        #expect(ServiceNotifier(variables: ["NOTIFY_SOCKET": name]).send(["READY=1", "STATUS=ok"]))
        #expect(listener.receive() == "READY=1\nSTATUS=ok\n")
    }

    @Test func daemonReportsReadyReloadingStoppingAndWatchdog() async throws {
        let folder = try TemporaryFolder()
        try ClosedOutputTests.config(in: folder)
        let listener = try Listener(path: folder.file("notify.sock").path)
        let widgetd = try RunningWidgetd(
            ["run", "--config", "widgets.d", "--out", "out"], in: folder.url,
            variables: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"])
        let pid = widgetd.pid
        var pings = 0
        let ready = listener.receiveState(pings: &pings)
        #expect(ready == "READY=1\nMAINPID=\(pid)\nSTATUS=1 widget loaded\n")

        kill(pid, SIGHUP)
        let reloading = try #require(listener.receiveState(pings: &pings))
        #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(reloading.hasSuffix("\nSTATUS=reloading the definitions\n"))
        #expect(listener.receiveState(pings: &pings) == "READY=1\nSTATUS=1 widget loaded\n")

        // Pings every 100 ms (half of WATCHDOG_USEC): wait for one if none came yet.
        while pings == 0, listener.receive() == "WATCHDOG=1\n" { pings += 1 }
        #expect(pings >= 1)

        kill(pid, SIGTERM)
        #expect(listener.receiveState(pings: &pings) == "STOPPING=1\nSTATUS=stopping\n")
        #expect(await widgetd.waitForExit() == 0)
    }
}
