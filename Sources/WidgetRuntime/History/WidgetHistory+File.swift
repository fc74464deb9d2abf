public import Foundation
import WidgetCore
public import WidgetJSON

/// `OUT/<id>.history.json`: the history as front-ends read it and as the daemon reads it back.
extension WidgetHistory {
    /// The file's bytes: one member a line, each series on one line of its own (`path`, `times`,
    /// `values`), with a final newline. `generatedAt` is when it was written.
    public func fileData(generatedAt: Date) -> Data {
        var lines = [
            "{",
            "  \"schemaVersion\": \(Self.schemaVersion),",
            "  \"id\": \(JSONWriter.string(.string(id))),",
            "  \"generatedAt\": \(JSONWriter.string(.string(Timestamp.string(generatedAt)))),",
            "  \"keep\": \(JSONWriter.string(.string(keep.description))),",
            "  \"points\": \(limit),",
        ]
        if series.isEmpty {
            lines.append("  \"series\": {}")
        } else {
            lines.append("  \"series\": {")
            for (index, one) in series.enumerated() {
                // Written piece by piece: a file is written at every fresh refresh, its series whole.
                let times = one.points.map { String($0.time) }.joined(separator: ",")
                let values = JSONWriter.string(.array(one.points.map(\.value)))
                let comma = index == series.count - 1 ? "" : ","
                lines.append(
                    "    \(JSONWriter.string(.string(one.name))): {\"path\":\(JSONWriter.string(.string(one.path))),\"times\":[\(times)],\"values\":\(values)}\(comma)"
                )
            }
            lines.append("  }")
        }
        lines.append("}")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The history a file holds; `nil` when `data` is not one (not JSON, another schema version, no id).
    /// A series whose `times` and `values` differ in length keeps the pairs both have; times that do not
    /// increase, and values that are not numbers, strings or booleans, are skipped.
    public init?(fileData data: Data) {
        guard let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth),
            value["schemaVersion"]?.number?.int == Self.schemaVersion, let id = value["id"]?.string
        else { return nil }
        self.init(id: id)
        if let text = value["keep"]?.string, let duration = WidgetDuration(text) { keep = duration }
        if let count = value["points"]?.number?.int, count >= 1 { limit = count }
        guard case .object(let object)? = value["series"] else { return }
        for (name, member) in object {
            guard let path = member["path"]?.string, let times = member["times"]?.array, let values = member["values"]?.array else {
                continue
            }
            var points: [Point] = []
            for (time, value) in zip(times, values) {
                guard let seconds = time.number?.int.map(Int64.init), Self.isKept(value) else { continue }
                if let last = points.last, last.time >= seconds { continue }
                points.append(Point(time: seconds, value: value))
            }
            series.append(Series(name: name, path: path, points: points))
        }
    }

    /// The series as `widgetd history --format json` prints them: each name with its points, oldest
    /// first, as templates see them.
    public var pointsValue: WidgetValue {
        .object(["id": .string(id), "series": templateValue])
    }

    /// The series as CSV: a header `series,at,value`, then one line per point, series by series, oldest
    /// first; a string value is quoted when it holds a comma, a quote or a line break.
    public var csv: String {
        var text = "series,at,value\n"
        for one in series {
            for point in one.points {
                let at = Timestamp.string(Date(timeIntervalSince1970: Double(point.time)))
                text += "\(one.name),\(at),\(Self.csvField(point.value))\n"
            }
        }
        return text
    }

    /// `value` as a CSV field: a number as written, a boolean as `true`/`false`, a string quoted when
    /// it must be.
    static func csvField(_ value: WidgetValue) -> String {
        switch value {
        case .string(let text):
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        default:
            return JSONWriter.string(value)
        }
    }
}
