import Foundation
import WidgetCore
import WidgetJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory per widget, through the real `widgetd run`: resident memory of a daemon with 1,000 HTTP widgets
/// (~18.7 KB payloads from a local nginx) once every widget is fresh, and of the same daemon restarted on
/// that output folder, idle (nothing due), each against a daemon with no widget started the same way.
/// Goals: at most 10 KB per HTTP widget above its snapshot's size after a wave; at most 2 KB per idle
/// widget loaded from state.
func runMemoryBenchmarks() {
    Benchmarks.section("memory: resident memory per widget, 1,000 HTTP widgets of ~18.7 KB payloads")
    guard Resident(of: getpid()) != nil else {
        emit("  skipped: resident memory is read from /proc, which this system does not have")
        return
    }
    guard let (nginx, widgetd) = nginxAndWidgetd() else { return }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-memory-bench-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let count = 1_000
    guard let server = LocalNginx.start(in: folder, nginx: nginx) else { return }
    defer { server.stop() }
    do {
        try writeWidgets(in: folder, count: count, port: server.port, itemsPerDocument: 250, limit: 4)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("empty"), withIntermediateDirectories: true)
    } catch {
        emit("  skipped: cannot prepare \(folder.path): \(error)")
        return
    }
    let payload =
        (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("www/w0000.json").path)[.size] as? Int) ?? 0

    // A daemon without widgets: what any daemon costs.
    guard
        let empty = residentAfterStart(
            widgetd.path, config: folder.appendingPathComponent("empty"), out: folder.appendingPathComponent("out-empty"), fresh: 0)
    else { return }
    let out = folder.appendingPathComponent("out")
    guard let wave = residentAfterStart(widgetd.path, config: folder.appendingPathComponent("defs"), out: out, fresh: count)
    else { return }
    let snapshotBytes =
        (try? FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("w0000.json").path)[.size] as? Int) ?? 0
    // The same folder again: every widget fresh and not due, so the daemon only loads its state.
    guard let idle = residentAfterStart(widgetd.path, config: folder.appendingPathComponent("defs"), out: out, fresh: count)
    else { return }
    let perWidget = Double(wave.total - empty.total) * 1024 / Double(count)
    let perIdle = Double(idle.total - empty.total) * 1024 / Double(count)
    /// KiB a widget, two decimals.
    func each(_ kib: Int) -> String { String(format: "%.2f", Double(kib) / Double(count)) }
    emit("  payload \(payload) bytes a widget, snapshot \(snapshotBytes) bytes")
    emit("  no widget: \(empty.total) KiB resident")
    emit(
        "  1,000 widgets after a wave: \(wave.total) KiB; \(String(format: "%.1f", perWidget / 1024)) KiB a widget, "
            + "\(String(format: "%.1f", (perWidget - Double(snapshotBytes)) / 1024)) KiB above its snapshot (goal: at most 10 KB)")
    emit(
        "  1,000 widgets loaded from state, idle: \(idle.total) KiB; \(String(format: "%.2f", perIdle / 1024)) KiB an idle widget (goal: at most 2 KB)"
    )
    emit(
        "    of which the heap and other anonymous pages \(each(idle.anonymous - empty.anonymous)) KiB a widget, "
            + "pages of code and data files \(each(idle.files - empty.files)) KiB (the code loading runs, once for all)")
}

/// Starts `widgetd run`, waits until it has loaded its widgets (its own record in the state folder) and
/// `fresh` widgets are fresh in its index, and a second more, reads its resident memory in KiB (see
/// ``Resident``), and stops it. The index alone does not tell: a daemon restarted on a folder finds its predecessor's, every
/// widget fresh, before it has loaded anything.
private func residentAfterStart(_ widgetd: String, config: URL, out: URL, fresh: Int) -> Resident? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: widgetd)
    process.arguments = ["run", "--config", config.path, "--out", out.path, "--log-level", "warning"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        emit("  Error: widgetd did not start: \(error)")
        return nil
    }
    defer {
        process.terminate()
        process.waitUntilExit()
    }
    let deadline = Date().addingTimeInterval(120)
    let index = out.appendingPathComponent("index.json")
    let record = out.appendingPathComponent(".state/_daemon.json")
    while Date() < deadline {
        if let data = try? Data(contentsOf: record), let value = try? JSONReader.read(data),
            value["pid"]?.number?.int == Int(process.processIdentifier),
            let data = try? Data(contentsOf: index), let value = try? JSONReader.read(data)
        {
            let widgets = value["widgets"]?.array ?? []
            if widgets.filter({ $0["status"]?.string == "fresh" }).count >= fresh { break }
        }
        usleep(100_000)
    }
    guard Date() < deadline else {
        emit("  Error: \(fresh) widgets were not fresh within 120 s")
        return nil
    }
    usleep(1_000_000)
    return Resident(of: process.processIdentifier)
}

/// VmRSS of a process, in KiB.
func residentKiB(of pid: Int32) -> Int? {
    Resident(of: pid)?.total
}

/// A process's resident memory in KiB: in all (VmRSS), in anonymous pages (the heap, stacks) and in pages
/// of files (code and data of the program and its libraries).
private struct Resident {
    var total: Int
    var anonymous: Int
    var files: Int

    init?(of pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var fields: [String: Int] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split { $0 == " " || $0 == "\t" }
            if parts.count >= 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let total = fields["VmRSS:"] else { return nil }
        self.total = total
        anonymous = fields["RssAnon:"] ?? 0
        files = (fields["RssFile:"] ?? 0) + (fields["RssShmem:"] ?? 0)
    }
}
