import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// The history model alone: points added from a refresh's content, the bounds by age and by count, a
/// changed block keeping the series whose paths did not change, and the file read back exactly.
struct WidgetHistoryTests {
    let start = Date(timeIntervalSince1970: 1_795_900_000)

    func block(keep: String = "7d", points: Int = 1000, _ values: [(String, String)]) throws -> HistoryDefinition {
        HistoryDefinition(
            keep: try #require(WidgetDuration(keep)), points: points,
            values: try values.map { HistoryDefinition.Series(name: $0.0, path: try JSONPath($0.1)) })
    }

    func content(_ json: String) throws -> WidgetValue {
        try JSONReader.read(json)
    }

    @Test func aRefreshAddsOnePointToEachSeriesWhosePathGivesOneScalar() throws {
        let definition = try block([
            ("total", "$.total"), ("name", "$.name"), ("up", "$.up"), ("list", "$.items[*]"), ("none", "$.missing"),
        ])
        var history = WidgetHistory(id: "p", definition: definition)
        history.record(try content(#"{"total": 12.50, "name": "a", "up": true, "items": [1, 2]}"#), at: start, definition: definition)
        #expect(history["total"]?.points == [.init(time: 1_795_900_000, value: .number(WidgetNumber("12.50")!))])
        #expect(history["name"]?.points.map(\.value) == [.string("a")])
        #expect(history["up"]?.points.map(\.value) == [.bool(true)])
        #expect(history["list"]?.points.isEmpty == true)
        #expect(history["none"]?.points.isEmpty == true)
        // An object or null is no point either.
        history.record(try content(#"{"total": {"a": 1}, "name": null}"#), at: start + 60, definition: definition)
        #expect(history["total"]?.points.count == 1)
        #expect(history["name"]?.points.count == 1)
    }

    @Test func pointsOlderThanKeepAreDropped() throws {
        let definition = try block(keep: "1h", [("v", "$.v")])
        var history = WidgetHistory(id: "p", definition: definition)
        for minute in 0...180 {
            history.record(try content(#"{"v": \#(minute)}"#), at: start + Double(minute * 60), definition: definition)
            let times = try #require(history["v"]?.points.map(\.time))
            #expect(times.count <= 60)
            #expect(times.allSatisfy { $0 > Int64(start.timeIntervalSince1970) + Int64(minute * 60) - 3_600 })
        }
        // An hour of minutes: the point an hour old is gone.
        #expect(history["v"]?.points.count == 60)
        #expect(history["v"]?.points.first?.value == .number(121))
    }

    @Test func aSeriesKeepsAtMostItsPointsTheNewest() throws {
        let definition = try block(points: 3, [("v", "$.v")])
        var history = WidgetHistory(id: "p", definition: definition)
        for step in 1...10 {
            history.record(try content(#"{"v": \#(step)}"#), at: start + Double(step), definition: definition)
            #expect((history["v"]?.points.count ?? 0) <= 3)
        }
        #expect(history["v"]?.points.map(\.value) == [.number(8), .number(9), .number(10)])
    }

    @Test func aPointReplacesThoseAtTheSameSecondOrLater() throws {
        let definition = try block([("v", "$.v")])
        var history = WidgetHistory(id: "p", definition: definition)
        history.record(try content(#"{"v": 1}"#), at: start, definition: definition)
        history.record(try content(#"{"v": 2}"#), at: start + 100, definition: definition)
        history.record(try content(#"{"v": 3}"#), at: start + 100.5, definition: definition)
        #expect(history["v"]?.points.map(\.value) == [.number(1), .number(3)])
        // A clock set back: the points after the new one go.
        history.record(try content(#"{"v": 4}"#), at: start + 50, definition: definition)
        #expect(history["v"]?.points.map(\.time) == [1_795_900_000, 1_795_900_050])
    }

    @Test func aMonthWithTheDefaultBoundsKeepsTheLastThousandPoints() throws {
        let definition = HistoryDefinition(values: [.init(name: "v", path: try JSONPath("$.v"))])
        var history = WidgetHistory(id: "p", definition: definition)
        var outOfBounds: [Int] = []
        for step in 0..<(30 * 24 * 12) {
            history.record(.object(["v": .number(WidgetNumber(step))]), at: start + Double(step * 300), definition: definition)
            if (history["v"]?.points.count ?? 0) > 1_000 { outOfBounds.append(step) }
        }
        #expect(outOfBounds.isEmpty)
        #expect(history["v"]?.points.count == 1_000)
        #expect(history["v"]?.points.first?.value == .number(WidgetNumber(30 * 24 * 12 - 1_000)))
    }

    @Test func aChangedBlockKeepsTheSeriesWhosePathsDidNotChange() throws {
        let first = try block([("total", "$.total"), ("down", "$.down"), ("gone", "$.gone")])
        var history = WidgetHistory(id: "p", definition: first)
        for step in 0..<5 {
            history.record(
                try content(#"{"total": \#(step), "down": \#(step), "gone": 1}"#), at: start + Double(step * 60), definition: first)
        }
        let second = try block(points: 2, [("down", "$.speed.down"), ("total", "$.total"), ("new", "$.new")])
        let fitted = history.adapted(to: second, now: start + 300)
        #expect(fitted.series.map(\.name) == ["down", "total", "new"])
        #expect(fitted["down"]?.points.isEmpty == true)
        #expect(fitted["total"]?.points.map(\.value) == [.number(3), .number(4)])
        #expect(fitted["new"]?.points.isEmpty == true)
        #expect(fitted["gone"] == nil)
        #expect(fitted.limit == 2)
    }

    @Test func aShorterKeepAppliesAtOnce() throws {
        let definition = try block([("v", "$.v")])
        var history = WidgetHistory(id: "p", definition: definition)
        for hour in 0..<48 {
            history.record(try content(#"{"v": \#(hour)}"#), at: start + Double(hour * 3_600), definition: definition)
        }
        let fitted = history.adapted(to: try block(keep: "12h", [("v", "$.v")]), now: start + 47 * 3_600)
        #expect(fitted["v"]?.points.count == 12)
        #expect(fitted.keep.description == "12h")
    }

    @Test func theFileReadsBackExactly() throws {
        let definition = try block(keep: "30d", points: 50, [("total", "$.total"), ("label", "$.label")])
        var history = WidgetHistory(id: "portfolio", definition: definition)
        let values = ["0.1", "0.2", "0.30000000000000004", "12345678901234567890", "-0.000000000000000000001", "1e400", "100.10"]
        for (index, value) in values.enumerated() {
            let label = index == 0 ? #""with \"quotes\", commas\nand a line""# : #""plain""#
            history.record(
                try content(#"{"total": \#(value), "label": \#(label)}"#), at: start + Double(index * 300), definition: definition)
        }
        let data = history.fileData(generatedAt: start + 1_800)
        let read = try #require(WidgetHistory(fileData: data))
        #expect(read == history)
        #expect(read["total"]?.points.map { JSONWriter.string($0.value) } == values)
        // Written as read: the numbers' text is the source's.
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("0.30000000000000004,12345678901234567890,-0.000000000000000000001,1e400,100.10"))
        #expect(text.hasPrefix("{\n  \"schemaVersion\": 1,\n  \"id\": \"portfolio\",\n  \"generatedAt\": \"2026-11-28T"))
        #expect(text.contains("\n  \"keep\": \"30d\",\n  \"points\": 50,\n"))
        #expect(text.hasSuffix("}\n"))
        // The file is JSON.
        let value = try JSONReader.read(data)
        #expect(value["series"]?["total"]?["times"]?.array?.count == values.count)
        #expect(value["series"]?["total"]?["path"] == .string("$.total"))
    }

    @Test func anEmptyHistoryHasAnEmptySeriesObject() throws {
        let history = WidgetHistory(id: "x")
        let data = history.fileData(generatedAt: start)
        #expect(try JSONReader.read(data)["series"] == .object([:]))
        #expect(WidgetHistory(fileData: data) == history)
    }

    @Test func aFileThatIsNotAHistoryReadsAsNone() {
        #expect(WidgetHistory(fileData: Data("not json".utf8)) == nil)
        #expect(WidgetHistory(fileData: Data(#"{"schemaVersion": 2, "id": "x", "series": {}}"#.utf8)) == nil)
        #expect(WidgetHistory(fileData: Data(#"{"schemaVersion": 1, "series": {}}"#.utf8)) == nil)
    }

    @Test func aDamagedSeriesKeepsWhatCanBeRead() throws {
        let text = #"""
            {"schemaVersion": 1, "id": "x", "keep": "1d", "points": 10, "series": {
              "a": {"path": "$.a", "times": [10, 20, 15, 30, 40], "values": [1, 2, 3, {"no": 1}]},
              "b": {"path": "$.b", "times": "oops", "values": []}
            }}
            """#
        let history = try #require(WidgetHistory(fileData: Data(text.utf8)))
        #expect(history["a"]?.points.map(\.time) == [10, 20])
        #expect(history["b"] == nil)
        #expect(history.keep.description == "1d")
        #expect(history.limit == 10)
    }

    @Test func templatesSeePointsOldestFirstWithRFC3339Times() throws {
        let definition = try block([("total", "$.total"), ("empty", "$.nothing")])
        var history = WidgetHistory(id: "p", definition: definition)
        history.record(try content(#"{"total": 1.5}"#), at: TestWidgets.date("2026-11-29T07:00:00Z"), definition: definition)
        history.record(try content(#"{"total": 2.25}"#), at: TestWidgets.date("2026-11-29T07:05:00Z"), definition: definition)
        #expect(
            JSONWriter.string(history.templateValue)
                == #"{"total":[{"at":"2026-11-29T07:00:00Z","value":1.5},{"at":"2026-11-29T07:05:00Z","value":2.25}],"empty":[]}"#)
    }

    @Test func csvHasAHeaderAndOneLinePerPointWithFieldsQuotedWhenNeeded() throws {
        let definition = try block([("total", "$.total"), ("label", "$.label")])
        var history = WidgetHistory(id: "p", definition: definition)
        history.record(
            try content(#"{"total": 0.10, "label": "a, \"b\""}"#), at: TestWidgets.date("2026-11-29T07:00:00Z"), definition: definition)
        history.record(try content(#"{"total": 3, "label": true}"#), at: TestWidgets.date("2026-11-29T07:05:00Z"), definition: definition)
        let lines = [
            "series,at,value",
            "total,2026-11-29T07:00:00Z,0.10",
            "total,2026-11-29T07:05:00Z,3",
            #"label,2026-11-29T07:00:00Z,"a, ""b""""#,
            "label,2026-11-29T07:05:00Z,true",
        ]
        #expect(history.csv == lines.joined(separator: "\n") + "\n")
    }
}
