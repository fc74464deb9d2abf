import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

@testable import WidgetdPlugins

struct RunwayPerformanceTransformTests {
    static let harness = {
        var harness = StageHarness(now: Date(timeIntervalSince1970: 1_800_000_000))
        harness.context.widgetID = "sf50-runways"
        return harness
    }()

    /// A sea-level airport with one paved runway heading north, 4,000 ft long.
    static let airport: WidgetValue = [
        "id": "KTST", "name": "Test Field", "elevation": 0,
        "runways": [["name": "36", "heading": 360, "length": 4000, "surface": "asphalt"]],
    ]

    /// An ISA sea-level METAR (15 °C, 1013.25 hPa) with the given wind.
    static func metar(direction: WidgetValue, speed: Int, gust: Int? = nil) -> WidgetValue {
        var report: WidgetObject = [
            "icaoId": "KTST", "wdir": direction, "wspd": .number(WidgetNumber(speed)), "temp": 15, "altim": 1013.25,
        ]
        if let gust { report["wgst"] = .number(WidgetNumber(gust)) }
        return .object(report)
    }

    /// The transform built from `options`, as a definition writes them, run on `input`.
    static func run(_ input: WidgetValue, options: String = "{}") async throws -> WidgetValue {
        try await harness.run(RunwayPerformanceTransform.self, options: options, input: input)
    }

    static func firstRunway(_ metar: WidgetValue, airport: WidgetValue = airport) async throws -> WidgetValue {
        let output = try await run(["airport": airport, "metar": metar])
        return try #require(output["runways"]?[0])
    }

    @Test func followsTheStageRules() async {
        let problems = await StageConformance.check(
            RunwayPerformanceTransform.self, options: ["baseDistance": 3200],
            input: ["airport": Self.airport, "metar": Self.metar(direction: 30, speed: 20)], alongside: .builtIn()
        )
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Wind, expected headwind, crosswind, side and takeoff distance, at sea level ISA (base 3,200 ft).
    static let windCases:
        [(name: String, metar: WidgetValue, headwind: WidgetValue, crosswind: WidgetValue, from: WidgetValue, distance: WidgetValue)] = [
            ("straight down the runway", metar(direction: 360, speed: 10), 10, 0, nil, 2880),
            ("pure crosswind from the right", metar(direction: 90, speed: 15), 0, 15, "right", 3200),
            ("pure crosswind from the left", metar(direction: 270, speed: 15), 0, 15, "left", 3200),
            ("tailwind", metar(direction: 180, speed: 6), -6, 0, nil, 4160),
            ("gusts give no headwind credit", metar(direction: 360, speed: 10, gust: 20), 10, 0, nil, 2880),
            ("gusts do not enter a tailwind", metar(direction: 180, speed: 5, gust: 8), -5, 0, nil, 4000),
            ("gusts do not enter the crosswind", metar(direction: 90, speed: 10, gust: 20), 0, 10, "right", 3200),
            ("thirty degrees off the nose", metar(direction: 30, speed: 20), 17.3, 10, "right", 2647),
            ("variable wind gives no components, as in the app", metar(direction: "VRB", speed: 5), 0, 0, nil, 3200),
            ("calm", metar(direction: 0, speed: 0), 0, 0, nil, 3200),
        ]

    @Test(arguments: windCases.indices)
    func computesWindComponentsAndDistance(_ index: Int) async throws {
        let example = Self.windCases[index]
        let runway = try await Self.firstRunway(example.metar)
        #expect(runway["headwind"] == example.headwind, "\(example.name)")
        #expect(runway["crosswind"] == example.crosswind, "\(example.name)")
        #expect(runway["crosswindFrom"] == example.from, "\(example.name)")
        #expect(runway["takeoffDistance"] == example.distance, "\(example.name)")
    }

    /// The app's `SnapshotWindComponents` (SF50 Runways/Views/List/RunwayListItem.swift:66-127) writes a
    /// component beside its arrow only when it rounds (half away from zero) to at least 1 kt, and writes its
    /// size rounded half to even.
    static let wholeKnotCases: [(metar: WidgetValue, whole: WidgetValue)] = [
        // 30° off the nose at 20 kt: 20·cos 30° = 17.32 ahead, 20·sin 30° = 10 across.
        (metar(direction: 30, speed: 20), ["headwind": 17, "tailwind": nil, "crosswind": 10]),
        // A tailwind of 6 kt straight behind: no crosswind at all.
        (metar(direction: 180, speed: 6), ["headwind": nil, "tailwind": 6, "crosswind": nil]),
        // 2 kt at 75°: 2·cos 75° = 0.52 rounds to 1, so it is shown; 2·sin 75° = 1.93 → 2.
        (metar(direction: 75, speed: 2), ["headwind": 1, "tailwind": nil, "crosswind": 2]),
        // 1 kt at 80°: 0.17 ahead is not shown, 0.98 across is.
        (metar(direction: 80, speed: 1), ["headwind": nil, "tailwind": nil, "crosswind": 1]),
        // Gusts are left out: 10 kt steady gusting 30 straight ahead.
        (metar(direction: 360, speed: 10, gust: 30), ["headwind": 10, "tailwind": nil, "crosswind": nil]),
    ]

    @Test(arguments: wholeKnotCases.indices)
    func writesTheWholeKnotsTheAppShowsBesideItsArrows(_ index: Int) async throws {
        let example = Self.wholeKnotCases[index]
        let runway = try await Self.firstRunway(example.metar)
        #expect(runway["wholeKnots"] == example.whole)
    }

    @Test func listsTheRunwaysByNameAsTheAppDoes() async throws {
        // RunwaySnapshot.NameComparator (SF50 Runways/RunwaySnapshot.swift:52-62) compares the names with
        // localizedStandardCompare: numbers by value.
        let airport: WidgetValue = [
            "id": "KTST", "elevation": 0,
            "runways": .array(["36", "9", "27", "17R", "10", "17L"].map { ["name": .string($0), "heading": 90, "length": 4000] }),
        ]
        let output = try await Self.run(["airport": airport, "metar": Self.metar(direction: 360, speed: 10)])
        let names = try #require(output["runways"]?.array).map { $0["name"]?.string }
        #expect(names == ["9", "10", "17L", "17R", "27", "36"])
    }

    @Test func reportsTheMarginAgainstTheRunwayLength() async throws {
        let runway = try await Self.firstRunway(Self.metar(direction: 180, speed: 6))
        #expect(runway["margin"] == -160)
        #expect(runway["fits"] == false)
        let headwind = try await Self.firstRunway(Self.metar(direction: 360, speed: 10))
        #expect(headwind["margin"] == 1120)
        #expect(headwind["fits"] == true)
    }

    @Test func densityAltitudeLengthensTheTakeoff() async throws {
        // PA 5,000 ft, ISA there 5 °C, 25 °C outside: DA = 5,000 + 120 × 20 = 7,400 ft → × 1.74.
        let airport: WidgetValue = ["id": "KHI", "elevation": 5000, "runways": [["name": "36", "heading": 360, "length": 8000]]]
        let output = try await Self.run(["airport": airport, "metar": ["wspd": 0, "temp": 25, "altim": 1013.25]])
        #expect(output["weather"]?["pressureAltitude"] == 5000)
        #expect(output["weather"]?["densityAltitude"] == 7400)
        #expect(output["runways"]?[0]?["takeoffDistance"] == 5568)
    }

    @Test func lowPressureRaisesThePressureAltitude() async throws {
        // QNH 1003.25 hPa: PA = 30 × 10 = 300 ft, ISA 14.4 °C, DA = 300 + 120 × 0.6 = 372 ft → 3,319.04 → 3,320.
        let output = try await Self.run(["airport": Self.airport, "metar": ["wspd": 0, "temp": 15, "altim": 1003.25]])
        #expect(output["weather"]?["pressureAltitude"] == 300)
        #expect(output["weather"]?["densityAltitude"] == 372)
        #expect(output["runways"]?[0]?["takeoffDistance"] == 3320)
    }

    @Test func grassLengthensTheTakeoffByAFifth() async throws {
        let airport: WidgetValue = [
            "id": "KTST", "elevation": 0, "runways": [["name": "36", "heading": 360, "length": 4000, "surface": "Grass"]],
        ]
        let runway = try await Self.firstRunway(Self.metar(direction: 0, speed: 0), airport: airport)
        #expect(runway["takeoffDistance"] == 3840)
    }

    @Test func readsTheListTheMETARAPIAnswersAndABaseDistanceOption() async throws {
        let output = try await Self.run(
            ["airport": Self.airport, "metar": [Self.metar(direction: 360, speed: 10), Self.metar(direction: 180, speed: 30)]],
            options: #"{"baseDistance": 2000}"#
        )
        #expect(output["runways"]?[0]?["takeoffDistance"] == 1800)
        #expect(output["weather"]?["station"] == "KTST")
        #expect(output["message"] == .null)
    }

    @Test func theDocumentedExampleGivesTheDocumentedNumbers() async throws {
        let airport: WidgetValue = [
            "id": "KPAO", "name": "Palo Alto", "elevation": 7,
            "runways": [["name": "31", "heading": 313, "length": 2443, "surface": "asphalt"]],
        ]
        let metar: WidgetValue = [
            "icaoId": "KPAO", "reportTime": "2026-11-22T09:47:00Z", "wdir": 310, "wspd": 8, "wgst": 15,
            "temp": 18, "altim": 1013.2, "elev": 2, "rawOb": "KPAO 220947Z 31008G15KT",
        ]
        let output = try await Self.run(["airport": airport, "metar": metar])
        #expect(output["weather"]?["pressureAltitude"] == 9)
        #expect(output["weather"]?["densityAltitude"] == 371)
        #expect(
            output["runways"] == [
                [
                    "name": "31", "heading": 313, "length": 2443, "surface": "asphalt", "headwind": 8, "crosswind": 0.4,
                    "crosswindFrom": "left", "wholeKnots": ["headwind": 8, "tailwind": nil, "crosswind": nil],
                    "takeoffDistance": 3054, "margin": -611, "fits": false,
                ]
            ])
    }

    @Test func aTailwindOverTheLimitMakesTheDistanceNotAvailableButKeepsTheWindComponents() async throws {
        let runway = try await Self.firstRunway(Self.metar(direction: 200, speed: 12))
        #expect(runway["takeoffDistance"] == "N/A")
        #expect(runway["margin"] == "N/A")
        #expect(runway["fits"] == "N/A")
        #expect(runway["headwind"] == -11.3)
        #expect(runway["crosswind"] == 4.1)
        #expect(runway["crosswindFrom"] == "left")
        #expect(runway["note"] == "the tailwind of 11.3 kt exceeds the 10 kt limit")
    }

    @Test func aRunwayWithBadDataIsNotAvailableWhileTheOthersAreComputed() async throws {
        let airport: WidgetValue = [
            "id": "KTST", "elevation": 0,
            "runways": [
                ["name": "04", "heading": "north-east", "length": 3000],
                ["name": "22", "heading": 220],
                ["name": "36", "heading": 360, "length": 4000],
            ],
        ]
        let output = try await Self.run(["airport": airport, "metar": Self.metar(direction: 360, speed: 10)])
        let runways = try #require(output["runways"]?.array)
        #expect(runways.count == 3)
        #expect(runways[0]["name"] == "04")
        #expect(runways[0]["takeoffDistance"] == "N/A")
        #expect(runways[0]["crosswind"] == "N/A")
        #expect(runways[0]["note"] == "the runway has no heading from 0 to 360 degrees")
        // Without a length the distance is still known; only how it compares with the runway is not.
        #expect(runways[1]["headwind"] == -7.7)
        #expect(runways[1]["takeoffDistance"] == 4432)
        #expect(runways[1]["margin"] == "N/A")
        #expect(runways[1]["fits"] == "N/A")
        #expect(runways[1]["note"] == "the runway has no positive length in feet")
        #expect(runways[2]["takeoffDistance"] == 2880)
    }

    @Test(arguments: [WidgetValue.null, [], [:], ["wspd": 5], ["temp": 15]])
    func missingWeatherShowsRunwaysWithoutPerformance(_ metar: WidgetValue) async throws {
        let output = try await Self.run(["airport": Self.airport, "metar": metar])
        #expect(output["weather"] == .null)
        #expect(output["message"] == "Weather is unavailable for KTST; runways are shown without performance.")
        let runway = try #require(output["runways"]?[0])
        #expect(runway["name"] == "36")
        #expect(runway["length"] == 4000)
        #expect(runway["takeoffDistance"] == .null)
        #expect(runway["headwind"] == .null)
    }

    @Test(arguments: [["metar": [:]], ["airport": nil, "metar": [:]], ["airport": [:], "metar": [:]]] as [WidgetValue])
    func noAirportPromptsToPickOne(_ input: WidgetValue) async throws {
        let output = try await Self.run(input)
        #expect(
            output == [
                "airport": nil, "weather": nil, "runways": [], "message": "Select an airport from the SF50 TOLD app first.",
            ])
    }

    @Test func anInputThatIsNotAnObjectFailsWithAHint() async throws {
        let error = await #expect(throws: StageError.self) { try await Self.run([1, 2]) }
        #expect(error?.message.contains("build it with a map transform") == true)
    }

    @Test(arguments: [#"{"baseDistance": 50}"#, #"{"maxTailwind": -1}"#, #"{"baseDistanc": 3200}"#])
    func rejectsOptionsOutOfRange(_ options: String) async throws {
        await #expect(throws: OptionsError.self) { try await Self.run(["airport": Self.airport], options: options) }
    }
}
