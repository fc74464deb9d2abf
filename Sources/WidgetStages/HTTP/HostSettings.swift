public import Foundation
public import WidgetCore
import WidgetJSON

/// What the folder of definitions says about the hosts its widgets read: the file `hosts.settings`
/// beside the definitions, JSON despite its name (a `*.json` file there would be read as a widget).
///
/// ```json
/// {"hosts": {"api.github.com": {"perMinute": 30}, "192.168.1.10:8123": {"perMinute": 60}}}
/// ```
///
/// A host is written as the URL names it, without scheme or path: `api.github.com`, or `host:port` to
/// name one port alone. Requests to a host over its `perMinute` wait for a free slot (within the fetch's
/// deadline) rather than fail; see ``HostLimits``.
public struct HostSettings: Sendable, Hashable {
    /// The file's name: `hosts.settings`.
    public static let fileName = "hosts.settings"
    /// The largest `perMinute`: 6000 (100 a second).
    public static let maximumPerMinute = 6000

    /// What one host allows.
    public struct Host: Sendable, Hashable {
        /// The most requests a minute, or `nil` for no limit.
        public var perMinute: Int?

        /// A host with at most `perMinute` requests a minute.
        public init(perMinute: Int? = nil) {
            self.perMinute = perMinute
        }
    }

    /// The hosts, by name as written (lowercased): `api.github.com` or `host:port`.
    public var hosts: [String: Host]

    /// Settings for `hosts`; none by default.
    public init(hosts: [String: Host] = [:]) {
        self.hosts = Dictionary(hosts.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }

    /// The entry that applies to `url`: its `host:port` when written, else its host; `nil` when none does.
    public func host(for url: URL) -> (name: String, host: Host)? {
        guard let name = url.host?.lowercased() else { return nil }
        if let port = url.port, let host = hosts["\(name):\(port)"] { return ("\(name):\(port)", host) }
        return hosts[name].map { (name, $0) }
    }

    /// The settings in `folder`'s ``fileName``; empty settings when there is no such file.
    ///
    /// - Throws: Every problem of the file, each a `Diagnostic` naming the file, the place and a fix.
    public static func load(folder: String) throws(HostSettingsError) -> HostSettings {
        let file = folder.hasSuffix("/") ? folder + fileName : folder + "/" + fileName
        guard FileManager.default.fileExists(atPath: file) else { return HostSettings() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw HostSettingsError(diagnostics: [
                Diagnostic(file: file, location: nil, path: nil, message: "the file cannot be read: \(error.localizedDescription)")
            ])
        }
        return try parse(data, file: file)
    }

    /// Reads settings from `data`, the contents of `file` (named in the diagnostics).
    ///
    /// - Throws: Every problem found, each naming `file`, the line and column, the key path and a fix.
    public static func parse(_ data: Data, file: String) throws(HostSettingsError) -> HostSettings {
        let value: WidgetValue
        let map: SourceMap
        do {
            (value, map) = try JSONReader.readWithLocations(data)
        } catch {
            throw HostSettingsError(diagnostics: [
                Diagnostic(file: file, location: error.location, path: nil, message: "this is not JSON: \(error.reason)")
            ])
        }
        var problems: [Diagnostic] = []
        func problem(_ path: ValuePath, key: Bool = false, _ message: String) {
            let location = key ? map.keyLocation(of: path) ?? map.valueLocation(of: path) : map.valueLocation(of: path)
            problems.append(Diagnostic(file: file, location: location, path: path, message: message))
        }
        guard case .object(let root) = value else {
            problem(.root, "the settings are an object: write {\"hosts\": {\"api.github.com\": {\"perMinute\": 30}}}")
            throw HostSettingsError(diagnostics: problems)
        }
        var hosts: [String: Host] = [:]
        for (key, member) in root {
            let path = ValuePath.root.appending(key)
            guard key == "hosts" else {
                problem(path, key: true, "\"\(key)\" is not a setting; the one setting is \"hosts\"")
                continue
            }
            guard case .object(let entries) = member else {
                problem(path, "\"hosts\" is an object of host names: write {\"api.github.com\": {\"perMinute\": 30}}")
                continue
            }
            for (name, entry) in entries {
                let hostPath = path.appending(name)
                if let fix = hostProblem(name) {
                    problem(hostPath, key: true, fix)
                    continue
                }
                guard case .object(let options) = entry else {
                    problem(hostPath, "a host's settings are an object: write {\"perMinute\": 30}")
                    continue
                }
                var host = Host()
                for (option, setting) in options {
                    let optionPath = hostPath.appending(option)
                    guard option == "perMinute" else {
                        problem(optionPath, key: true, "\"\(option)\" is not a host setting; the one setting is \"perMinute\"")
                        continue
                    }
                    guard case .number(let number) = setting, let count = number.int, (1...maximumPerMinute).contains(count) else {
                        problem(
                            optionPath,
                            "\"perMinute\" must be a whole number from 1 to \(maximumPerMinute), not \(JSONWriter.string(setting))")
                        continue
                    }
                    host.perMinute = count
                }
                hosts[name.lowercased()] = host
            }
        }
        guard problems.isEmpty else { throw HostSettingsError(diagnostics: problems) }
        return HostSettings(hosts: hosts)
    }

    /// Why `name` is not a host as the file writes them, with the fix; `nil` when it is one.
    static func hostProblem(_ name: String) -> String? {
        let quoted = "\"\(name)\""
        if name.contains("://") || name.contains("/") {
            let bare = URL(string: name.contains("://") ? name : "http://" + name).flatMap { url in
                url.host.map { host in url.port.map { "\(host):\($0)" } ?? host }
            }
            return "\(quoted) is not a host name; write the host alone, without scheme or path"
                + (bare.map { ", e.g. \"\($0)\"" } ?? "")
        }
        guard let url = URL(string: "http://" + name), let host = url.host, !host.isEmpty,
            name.lowercased() == (url.port.map { "\(host):\($0)" } ?? host).lowercased()
        else {
            return "\(quoted) is not a host name; write e.g. \"api.github.com\" or \"192.168.1.10:8123\""
        }
        return nil
    }
}

/// The problems of a ``HostSettings`` file, every one of them.
public struct HostSettingsError: Error, Sendable, CustomStringConvertible {
    /// Each problem, naming the file, the place and a fix.
    public var diagnostics: [Diagnostic]

    /// The error of `diagnostics`.
    public init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    /// The diagnostics, one a line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
