public import Foundation
import WidgetCore
public import WidgetJSON

/// What a running daemon records about itself in `OUT/.state/_daemon.json`, for `widgetd status`:
/// its process, when it started, when its last refresh wave ended and, once it stopped cleanly, when.
///
/// Whether the daemon still runs is not read from here but from the folder's lock (a daemon killed
/// with SIGKILL writes nothing more); this says which daemon and how it was doing.
public struct DaemonRecord: Sendable, Equatable {
    /// The daemon's process id.
    public var pid: Int
    /// When the daemon started.
    public var startedAt: Date
    /// When the last wave of refreshes ended; nil before the first.
    public var lastWaveAt: Date?
    /// When the daemon stopped; nil while it runs (or when it was killed).
    public var stoppedAt: Date?
    /// How many widgets it runs.
    public var widgets: Int
    /// `K/N` when it is one of several daemons sharing the definitions.
    public var shard: String?
    /// The widgetd release.
    public var version: String
    /// The widgets whose last snapshot could not be written (disk full, a file in the way), with the error.
    public var unwritten: [String: String] = [:]
    /// How the uploads of a bucket output stand (pending objects, failures); nil for a folder.
    public var output: BucketOutput.Health?

    /// A record of a daemon; by default it has had no wave yet, has not stopped, is not a shard and
    /// is of this release, with no unwritten widgets.
    public init(
        pid: Int, startedAt: Date, lastWaveAt: Date? = nil, stoppedAt: Date? = nil, widgets: Int, shard: String? = nil,
        version: String = BuildInfo.release
    ) {
        self.pid = pid
        self.startedAt = startedAt
        self.lastWaveAt = lastWaveAt
        self.stoppedAt = stoppedAt
        self.widgets = widgets
        self.shard = shard
        self.version = version
    }

    /// The record as written to the file.
    public var value: WidgetValue {
        var object: WidgetObject = [
            "pid": .number(WidgetNumber(pid)), "startedAt": .string(Timestamp.string(startedAt)),
            "lastWaveAt": lastWaveAt.map { .string(Timestamp.string($0)) } ?? .null,
            "stoppedAt": stoppedAt.map { .string(Timestamp.string($0)) } ?? .null,
            "widgets": .number(WidgetNumber(widgets)),
        ]
        if let shard { object["shard"] = .string(shard) }
        object["version"] = .string(version)
        if !unwritten.isEmpty {
            object["unwritten"] = .object(WidgetObject(unwritten.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        if let output { object["output"] = output.value }
        return .object(object)
    }

    /// Reads a record written by ``value``; nil when it is not one.
    public init?(value: WidgetValue) {
        guard let pid = value["pid"]?.number?.int,
            let startedAt = value["startedAt"]?.string.flatMap(Timestamp.date)
        else { return nil }
        self.pid = pid
        self.startedAt = startedAt
        lastWaveAt = value["lastWaveAt"]?.string.flatMap(Timestamp.date)
        stoppedAt = value["stoppedAt"]?.string.flatMap(Timestamp.date)
        widgets = value["widgets"]?.number?.int ?? 0
        shard = value["shard"]?.string
        version = value["version"]?.string ?? "unknown"
        output = value["output"].flatMap(BucketOutput.Health.init(value:))
        for (id, error) in value["unwritten"]?.object ?? [:] {
            if let error = error.string { unwritten[id] = error }
        }
    }
}
