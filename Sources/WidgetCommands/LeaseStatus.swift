import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// Where a daemon writing to a bucket stands with its lease, as `widgetd status` shows it: kept in the
/// working folder (`WORK/.state/_lease.json`), never in the bucket, since a daemon that waits
/// for the lease must not write there.
struct LeaseStatus: Sendable, Equatable {
    /// The keeper's status.
    var status: LeaseKeeper.Status
    /// What the lease is of: `shard 1/3`.
    var label: String
    /// The daemon's process id.
    var pid: Int

    /// The file in the working folder `work`.
    static func file(in work: String) -> URL {
        URL(fileURLWithPath: work, isDirectory: true).appendingPathComponent(".state/_lease.json")
    }

    /// The status as written to the file.
    var value: WidgetValue {
        var object: WidgetObject = ["lease": .string(label), "pid": .number(WidgetNumber(pid))]
        switch status {
        case .idle:
            object["state"] = .string("starting")
        case .waiting(let holder, let heldSince, let waitingSince):
            object["state"] = .string("waiting")
            object["holder"] = holder.map(WidgetValue.string) ?? .null
            object["heldSince"] = heldSince.map { .string(Timestamp.string($0)) } ?? .null
            object["waitingSince"] = .string(Timestamp.string(waitingSince))
        case .holding(let since):
            object["state"] = .string("holding")
            object["since"] = .string(Timestamp.string(since))
        case .unrenewed(let since):
            object["state"] = .string("unrenewed")
            object["since"] = .string(Timestamp.string(since))
        case .lost(let by):
            object["state"] = .string("lost")
            object["holder"] = by.map(WidgetValue.string) ?? .null
        case .released:
            object["state"] = .string("released")
        }
        return .object(object)
    }

    /// Reads a status written by ``value``; nil when it is not one.
    init?(value: WidgetValue) {
        guard let label = value["lease"]?.string, let pid = value["pid"]?.number?.int, let state = value["state"]?.string else {
            return nil
        }
        let date = { (key: String) in value[key]?.string.flatMap(Timestamp.date) }
        switch state {
        case "starting": status = .idle
        case "waiting":
            guard let since = date("waitingSince") else { return nil }
            status = .waiting(holder: value["holder"]?.string, heldSince: date("heldSince"), waitingSince: since)
        case "holding":
            guard let since = date("since") else { return nil }
            status = .holding(since: since)
        case "unrenewed":
            guard let since = date("since") else { return nil }
            status = .unrenewed(since: since)
        case "lost": status = .lost(by: value["holder"]?.string)
        case "released": status = .released
        default: return nil
        }
        self.label = label
        self.pid = pid
    }

    /// A status of the daemon `pid`.
    init(status: LeaseKeeper.Status, label: String, pid: Int) {
        self.status = status
        self.label = label
        self.pid = pid
    }

    /// Writes the status into the working folder `work`; a failure is only logged by the caller.
    func write(in work: String) throws {
        let file = LeaseStatus.file(in: work)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try AtomicFile.write(JSONWriter.data(value, style: .pretty) + Data([0x0A]), to: LeaseStatus.file(in: work))
    }

    /// The status the daemon working in `work` last wrote, if any.
    static func read(in work: String) -> LeaseStatus? {
        guard let data = try? Data(contentsOf: file(in: work)), let value = try? JSONReader.read(data)
        else { return nil }
        return LeaseStatus(value: value)
    }

    /// `waiting for the lease of shard 1/3, held by pod-a pid 7 (5f0c…) since 2026-11-29T04:00:00Z
    /// (waiting 2m)`, or nil when there is nothing to say beyond the daemon's own line (it holds the
    /// lease).
    func line(now: Date) -> String? {
        switch status {
        case .idle:
            return "starting: about to take the lease of \(label)"
        case .waiting(let holder, let heldSince, let waitingSince):
            let since = heldSince.map { " since \(Timestamp.string($0))" } ?? ""
            return "waiting for the lease of \(label), held by \(holder ?? "another process")\(since) "
                + "(waiting \(StatusCommand.age(now.timeIntervalSince(waitingSince))))"
        case .holding, .released:
            return nil
        case .unrenewed(let since):
            return "not writing since \(Timestamp.string(since)): the lease of \(label) cannot be renewed (the store does not answer)"
        case .lost(let by):
            return "the lease of \(label) was taken by \(by ?? "another process"); this daemon stops writing"
        }
    }
}
