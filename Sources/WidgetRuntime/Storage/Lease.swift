public import Foundation
import WidgetCore
import WidgetJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a shard's lease object (`.state/lease.json`, or `.state/shards/K-of-N/lease.json` with
/// `--shard`): who holds it, since when, when it last renewed it, and for how long a renewal counts.
///
/// The dates are the holder's wall clock, for people reading `status` and logs. No daemon trusts them:
/// a waiting daemon decides that a lease expired from its own monotonic clock (see ``LeaseKeeper``).
///
/// ```json
/// {
///   "holder": { "host": "widgetd-1", "pid": 7, "id": "5f0c2a9e1b7d4c36" },
///   "acquiredAt": "2026-11-29T04:00:00Z",
///   "renewedAt": "2026-11-29T04:10:20Z",
///   "renewals": 62,
///   "ttlSeconds": 30
/// }
/// ```
public struct Lease: Sendable, Equatable {
    /// The process holding a lease.
    public struct Holder: Sendable, Equatable, CustomStringConvertible {
        /// The host name of its machine (a pod's name under Kubernetes).
        public var host: String
        /// Its process id.
        public var pid: Int
        /// A random id chosen when the process started, so two processes with the same host name and
        /// pid (two pods) are told apart.
        public var id: String

        /// A holder with these facts.
        public init(host: String, pid: Int, id: String) {
            self.host = host
            self.pid = pid
            self.id = id
        }

        /// This process: the machine's host name, its pid, and a new random id.
        public static func thisProcess() -> Holder {
            var buffer = [CChar](repeating: 0, count: 256)
            let host = gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : "unknown-host"
            let id = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            return Holder(host: host.isEmpty ? "unknown-host" : host, pid: Int(getpid()), id: id)
        }

        /// `widgetd-1 pid 7 (5f0c2a9e1b7d4c36)`.
        public var description: String { "\(host) pid \(pid) (\(id))" }
    }

    /// Who holds the lease.
    public var holder: Holder
    /// When the holder took it, by its clock.
    public var acquiredAt: Date
    /// When the holder last renewed it, by its clock.
    public var renewedAt: Date
    /// How many times the holder renewed it; it also makes every renewal's bytes (and so its entity
    /// tag) new.
    public var renewals: Int
    /// How long the lease counts without a renewal, in seconds.
    public var ttlSeconds: Double

    /// A lease with these facts.
    public init(holder: Holder, acquiredAt: Date, renewedAt: Date, renewals: Int = 0, ttlSeconds: Double) {
        self.holder = holder
        self.acquiredAt = acquiredAt
        self.renewedAt = renewedAt
        self.renewals = renewals
        self.ttlSeconds = ttlSeconds
    }

    /// The lease as stored: pretty JSON and a final newline.
    public var data: Data {
        let value: WidgetValue = .object([
            "holder": .object([
                "host": .string(holder.host), "pid": .number(WidgetNumber(holder.pid)), "id": .string(holder.id),
            ]),
            "acquiredAt": .string(Timestamp.string(acquiredAt)),
            "renewedAt": .string(Timestamp.string(renewedAt)),
            "renewals": .number(WidgetNumber(renewals)),
            "ttlSeconds": .number(WidgetNumber(Int(ttlSeconds.rounded()))),
        ])
        return JSONWriter.data(value, style: .pretty) + Data([0x0A])
    }

    /// Reads a lease written by ``data``; nil when `data` is not one (another program's object, or a
    /// damaged one: a waiting daemon then still waits for it to stay unchanged for a whole TTL).
    public init?(data: Data) {
        guard let value = try? JSONReader.read(data), let holder = value["holder"],
            let host = holder["host"]?.string, let pid = holder["pid"]?.number?.int, let id = holder["id"]?.string,
            let acquiredAt = value["acquiredAt"]?.string.flatMap(Timestamp.date),
            let renewedAt = value["renewedAt"]?.string.flatMap(Timestamp.date),
            let ttl = value["ttlSeconds"]?.number?.int, ttl > 0
        else { return nil }
        self.init(
            holder: Holder(host: host, pid: pid, id: id), acquiredAt: acquiredAt, renewedAt: renewedAt,
            renewals: value["renewals"]?.number?.int ?? 0, ttlSeconds: Double(ttl))
    }

    /// The key of the lease under an output's `prefix` (`""`, or a path with or without its final `/`):
    /// `PREFIX/.state/lease.json`, or `PREFIX/.state/shards/K-of-N/lease.json` for `shard`.
    public static func key(prefix: String, shard: Shard?) -> String {
        let root = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
        guard let shard else { return root + ".state/lease.json" }
        return root + ".state/shards/\(shard.name)/lease.json"
    }
}
