package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a real `widgetd run` with SIGKILL, again and again, while the number its one widget reads keeps
/// changing, and counts what a webhook receiver got: every change must arrive (none lost), and none twice
/// under two ids (none detected twice).
///
/// The widget reads `n.json` (`{"n": K}`) every second and has a `change` rule on `$.n` whose body is
/// `n=K`. Each round writes the next number once the snapshot shows the previous one, waits a varied
/// moment (seeded: before, during or after the refresh, the outbox's save or the delivery), kills the
/// daemon and starts it again. Waiting is for conditions (the snapshot showing a number, the receiver
/// having every change), never for a fixed time, with generous limits.
package struct NotifyCrashRun: Sendable {
    /// What the receiver got.
    package struct Result: Sendable, CustomStringConvertible {
        package var kills: Int
        /// The changes made: each number after the first.
        package var changes: Int
        /// The changes that arrived, under any id.
        package var delivered: Int
        /// The changes that never arrived.
        package var lost: [Int]
        /// The changes that arrived under more than one id: detected twice.
        package var duplicated: [Int]
        /// Every request the receiver took, repeats of one id included.
        package var raw: Int
        /// The distinct `Idempotency-Key`s.
        package var keys: Int

        package var description: String {
            "notify crash test: \(kills) SIGKILLs, \(changes) changes, \(delivered) delivered, \(lost.count) lost, "
                + "\(duplicated.count) duplicated (raw \(raw), \(keys) distinct Idempotency-Keys)"
        }
    }

    /// A request the receiver took: its `Idempotency-Key` and its body.
    package typealias Delivery = (key: String, body: String)

    /// How many times the daemon is killed.
    package var kills: Int
    /// The seed of the kill moments.
    package var seed: UInt64
    /// The webhook's address.
    package var webhook: URL
    /// What the receiver took so far.
    package var deliveries: @Sendable () -> [Delivery]

    package init(kills: Int, seed: UInt64 = 34, webhook: URL, deliveries: @escaping @Sendable () -> [Delivery]) {
        self.kills = kills
        self.seed = seed
        self.webhook = webhook
        self.deliveries = deliveries
    }

    /// Runs the rounds and returns the counts, once the receiver has every change or two minutes passed
    /// without a new one.
    ///
    /// - Throws: when the daemon cannot start, or a snapshot does not show a number within two minutes.
    package func run() async throws -> Result {
        let folder = try TemporaryFolder("widgetd-notify-crash")
        _ = try folder.write(
            "widgets.d/counter.json",
            """
            {"title": "Counter", "source": {"path": "n.json"}, "parser": "json",
             "schedule": {"every": "1s", "allowFrequent": true, "maxPerDay": 1000000},
             "notify": [{"name": "n", "on": "change", "path": "$.n",
                         "webhook": {"url": "\(webhook.absoluteString)", "body": "n={{ change.to }}"}}]}
            """)
        func setNumber(_ number: Int) throws {
            _ = try folder.write("widgets.d/n.json.tmp", #"{"n": \#(number)}"#)
            // Renamed into place: the daemon reads the old number or the new, never half of one.
            guard rename(folder.file("widgets.d/n.json.tmp").path, folder.file("widgets.d/n.json").path) == 0 else {
                throw ToolError(description: "n.json could not be replaced (errno \(errno))")
            }
        }
        _ = try folder.write("widgets.d/n.json", #"{"n": 0}"#)
        let arguments = ["run", "--config", folder.file("widgets.d").path, "--out", folder.file("out").path, "--log-level", "warning"]
        var random = SeededGenerator(seed: seed)
        var daemon = try Daemon(arguments)
        try await waitForSnapshot(showing: 0, in: folder, daemon: &daemon, arguments: arguments)
        for round in 1...max(1, kills) {
            try setNumber(round)
            // The moment: at once, or up to 1.5 s later (a refresh a second).
            let delay = Double.random(in: 0..<1.5, using: &random)
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            await daemon.kill()
            daemon = try Daemon(arguments)
            try await waitForSnapshot(showing: round, in: folder, daemon: &daemon, arguments: arguments)
        }
        let last = max(1, kills) + 1
        try setNumber(last)
        try await waitForSnapshot(showing: last, in: folder, daemon: &daemon, arguments: arguments)
        // Wait for the outbox to drain: every change arrived, or nothing new for two minutes.
        var seen = 0
        var quietSince = Date()
        while Date().timeIntervalSince(quietSince) < 120 {
            let numbers = Set(deliveries().compactMap { Int($0.body.dropFirst(2)) })
            if numbers.isSuperset(of: 1...last) { break }
            if numbers.count != seen {
                seen = numbers.count
                quietSince = Date()
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        _ = await daemon.stop()
        let received = deliveries()
        var keysByNumber: [Int: Set<String>] = [:]
        for delivery in received {
            guard let number = Int(delivery.body.dropFirst(2)) else { continue }
            keysByNumber[number, default: []].insert(delivery.key)
        }
        return Result(
            kills: max(1, kills), changes: last, delivered: (1...last).count { keysByNumber[$0] != nil },
            lost: (1...last).filter { keysByNumber[$0] == nil }, duplicated: keysByNumber.filter { $0.value.count > 1 }.keys.sorted(),
            raw: received.count, keys: Set(received.map(\.key)).count)
    }

    /// Waits until the widget's snapshot shows `number`; restarts the daemon if it exited meanwhile.
    private func waitForSnapshot(showing number: Int, in folder: TemporaryFolder, daemon: inout Daemon, arguments: [String]) async throws {
        let snapshot = folder.file("out/counter.json")
        let started = Date()
        while Date().timeIntervalSince(started) < 120 {
            if let data = try? Data(contentsOf: snapshot), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let entries = object["entries"] as? [[String: Any]], let content = entries.first?["content"] as? [String: Any],
                (content["n"] as? NSNumber)?.intValue == number
            {
                return
            }
            if !daemon.isRunning { daemon = try Daemon(arguments) }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw ToolError(description: "the snapshot did not show n = \(number) within two minutes")
    }

    /// Sends `number` to the process `pid`.
    private static func signal(_ pid: Int32, _ number: Int32) {
        _ = kill(pid, number)
    }

    /// One `widgetd run` process.
    private struct Daemon {
        let process: Process

        init(_ arguments: [String]) throws {
            process = Process()
            process.executableURL = try Widgetd.executable()
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        var isRunning: Bool { process.isRunning }

        func kill() async {
            NotifyCrashRun.signal(process.processIdentifier, SIGKILL)
            await waitForExit()
        }

        func stop() async {
            process.terminate()
            await waitForExit()
        }

        private func waitForExit() async {
            while process.isRunning { try? await Task.sleep(nanoseconds: 5_000_000) }
        }
    }
}
