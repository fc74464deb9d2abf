public import Foundation
public import WidgetCore
public import WidgetJSON

/// Computes, for every runway of the selected airport, the wind components and a takeoff-distance
/// estimate from the current METAR: `{"type": "runwayPerformance"}`.
///
/// **Input**: an object with the airport and its METAR (the SF50 Runways widget, seed 002):
///
/// ```json
/// {"airport": {"id": "KPAO", "name": "Palo Alto", "elevation": 7,
///              "runways": [{"name": "31", "heading": 313, "length": 2443, "surface": "asphalt"}]},
///  "metar": {"icaoId": "KPAO", "reportTime": "2026-11-22T09:47:00Z", "wdir": 310, "wspd": 8, "wgst": 15,
///            "temp": 18, "altim": 1013.2, "elev": 2, "rawOb": "KPAO 220947Z 31008G15KT …"}}
/// ```
///
/// - `airport.id` is the station whose METAR is read (shown in messages); `airport.elevation` is in feet; each runway's `heading` is its true heading in degrees, `length` the
///   distance available for takeoff in feet, `surface` optional (`asphalt`, `concrete`, `grass`, …).
/// - `metar` is one report in the aviationweather.gov JSON format, or the list that API answers (the
///   first report is used): `wdir` true degrees or `"VRB"`, `wspd`/`wgst` knots, `temp` °C, `altim` hPa
///   (a value under 100 is read as inHg), `elev` metres (used only when the airport has no elevation).
///
/// **Output**:
///
/// ```json
/// {"airport": {"id": "KPAO", "name": "Palo Alto"},
///  "weather": {"observed": "…", "raw": "…", "windDirection": 310, "windSpeed": 8, "windGust": 15,
///              "temperature": 18, "altimeter": 1013.2, "pressureAltitude": 9, "densityAltitude": 371},
///  "runways": [{"name": "31", "heading": 313, "length": 2443, "surface": "asphalt", "headwind": 8,
///               "crosswind": 0.4, "crosswindFrom": "left",
///               "wholeKnots": {"headwind": 8, "tailwind": null, "crosswind": null},
///               "takeoffDistance": 3054, "margin": -611, "fits": false}],
///  "message": null}
/// ```
///
/// The runways come sorted by name as the app lists them (numbers by value: `9` before `10`, `17L` before
/// `17R`). `wholeKnots` holds what the app's medium widget writes beside its wind arrows: each component
/// in whole knots (half to even), `null` when it rounds to less than 1 kt.
///
/// **Empty states**: no airport (`airport` missing, `null` or `{}`) gives
/// `{"airport": null, "weather": null, "runways": [], "message": "Select an airport from the SF50 TOLD app first."}`
/// (the app's words); no usable
/// weather (`metar` missing, `null`, `[]`, without wind speed or temperature, or no elevation in either
/// the airport or the report) gives the airport and its runways with `headwind`, `crosswind`,
/// `takeoffDistance`, `margin` and `fits` all `null` and a message saying so. A calculation error shows
/// `"N/A"` only for what cannot be calculated, with a `note` saying why: everything for a runway without
/// a heading from 0 to 360; the takeoff distance, `margin` and `fits` beyond `maxTailwind` of tailwind
/// (the wind components stay, as the app shows them); `margin` and `fits` for a runway without a
/// positive length.
///
/// **Model** (simplified; an illustration, not for flight planning):
/// - Wind components as the app computes them (`RunwaySnapshot.swift`), with θ = wind direction − runway
///   heading and V the steady wind `wspd`: headwind = V·cos θ, crosswind = |V·sin θ|, rounded to 0.1 kt;
///   gusts (`wgst`) do not enter the components, the distance or the tailwind limit, and are only reported
///   in `weather.windGust`. Variable wind (`VRB`) and calm give no components, as in the app. A negative
///   `headwind` is a tailwind.
/// - Pressure altitude PA = elevation + 30 ft × (1013.25 − QNH in hPa); ISA temperature = 15 °C − 2 °C per
///   1,000 ft of PA; density altitude DA = PA + 120 ft × (OAT − ISA). No altimeter: QNH 1013.25.
/// - Takeoff distance = `baseDistance` × (1 + 0.10 × DA / 1,000 ft) × wind factor × surface factor,
///   rounded up to a whole foot, where the wind factor is 1 − 0.01 per knot of headwind or 1 + 0.05 per
///   knot of tailwind (10 % per 10 kt headwind, 10 % per 2 kt tailwind), and the surface factor is 1.2 for
///   `grass`, `turf`, `dirt`, `gravel`, `sand`, `soil`, `snow` and 1.0 otherwise. Every step after the
///   wind components is exact decimal arithmetic.
/// - `margin` = length − takeoff distance; `fits` = margin ≥ 0.
///
/// Options: `baseDistance` (feet at sea level, ISA, no wind, paved; default 3,200, roughly a light jet at
/// its maximum takeoff weight over a 50 ft obstacle: use your aircraft's flight manual) and `maxTailwind`
/// (knots, default 10).
public struct RunwayPerformanceTransform: Transformer {
    /// The options describe their keys (``DescribedOptions``), each once: `widgetd-plugins schema` lists
    /// them with their bounds and defaults, the decoder supplies the defaults and refuses a value out of
    /// bounds, and `validate` flags a misspelt key.
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// The takeoff distance in feet at sea level, 15 °C and no wind.
        public var baseDistance: Int
        /// The most tailwind in knots a runway may have and still be computed.
        public var maxTailwind: Int

        public enum CodingKeys: String, DescribedKey {
            case baseDistance, maxTailwind

            public var keyDescription: KeyDescription {
                switch self {
                case .baseDistance:
                    KeyDescription(
                        "The takeoff distance in feet at sea level, 15 °C and no wind.",
                        .integer(minimum: 100, maximum: 20_000),
                        default: .number(WidgetNumber(RunwayPerformanceTransform.defaultBaseDistance))
                    )
                case .maxTailwind:
                    KeyDescription(
                        "The most tailwind in knots a runway may have and still be computed.",
                        .integer(minimum: 0), default: .number(WidgetNumber(RunwayPerformanceTransform.defaultMaxTailwind))
                    )
                }
            }
        }
    }

    /// ``baseDistance`` unless the options set it.
    public static let defaultBaseDistance = 3200
    /// ``maxTailwind`` unless the options set it.
    public static let defaultMaxTailwind = 10

    public static let typeName = "runwayPerformance"
    public static let summary = "Computes headwind, crosswind and a takeoff-distance estimate for each runway from a METAR."

    /// What a runway shows when its calculation fails.
    public static let notAvailable: WidgetValue = "N/A"
    /// The message shown when no airport is selected.
    public static let selectAirportMessage = "Select an airport from the SF50 TOLD app first."
    /// Surfaces that lengthen the takeoff by ``softSurfaceFactor``.
    public static let softSurfaces: Set<String> = ["grass", "turf", "dirt", "gravel", "sand", "soil", "snow"]
    /// The factor applied on a soft surface.
    public static let softSurfaceFactor: Decimal = 1.2

    public let baseDistance: Int
    public let maxTailwind: Int

    /// Takes the options as the decoder checked them: `baseDistance` from 100 to 20,000 ft, `maxTailwind`
    /// 0 or more, each its default when not written.
    public init(options: Options) {
        baseDistance = options.baseDistance
        maxTailwind = options.maxTailwind
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .object(let input) = value else {
            throw StageError(
                "runwayPerformance needs an object {\"airport\": …, \"metar\": …}, not \(value.typeName); build it with a map transform"
            )
        }
        guard case .object(let airport)? = input["airport"], !airport.isEmpty else {
            return ["airport": nil, "weather": nil, "runways": [], "message": .string(Self.selectAirportMessage)]
        }
        let id = airport["id"]?.string
        var summary: WidgetObject = ["id": id.map(WidgetValue.string) ?? nil]
        if let name = airport["name"] { summary["name"] = name }
        let runways = airport["runways"]?.array ?? []
        let weather = Weather(metar: input["metar"], airportElevation: Self.decimal(airport["elevation"]))

        var rows: [WidgetValue] = []
        for runway in Self.sortedByName(runways) {
            rows.append(.object(row(for: runway, weather: weather)))
        }
        var message: WidgetValue = nil
        if weather == nil {
            message = .string("Weather is unavailable for \(id ?? "this airport"); runways are shown without performance.")
        } else if runways.isEmpty {
            message = .string("\(id ?? "This airport") has no runways on file.")
        }
        return [
            "airport": .object(summary),
            "weather": weather.map { .object($0.summary) } ?? nil,
            "runways": .array(rows),
            "message": message,
        ]
    }

    // MARK: - One runway

    /// The row of one runway: its data, then its performance (null without weather, "N/A" for what cannot
    /// be calculated).
    func row(for runway: WidgetValue, weather: Weather?) -> WidgetObject {
        let object = runway.object ?? [:]
        var row: WidgetObject = ["name": object["name"] ?? object["ident"] ?? nil]
        let heading = Self.decimal(object["heading"])
        let length = Self.decimal(object["length"])
        let surface = object["surface"]?.string
        row["heading"] = heading.flatMap(Self.number) ?? object["heading"] ?? .null
        row["length"] = length.flatMap(Self.number) ?? object["length"] ?? .null
        row["surface"] = surface.map(WidgetValue.string) ?? .null
        let windKeys = ["headwind", "crosswind", "crosswindFrom", "wholeKnots"]
        let distanceKeys = ["takeoffDistance", "margin", "fits"]
        guard let weather else {
            for key in windKeys + distanceKeys { row[key] = .null }
            return row
        }
        func notAvailable(_ keys: [String], because note: String) -> WidgetObject {
            for key in keys where row[key] == nil { row[key] = Self.notAvailable }
            row["note"] = .string(note)
            return row
        }
        guard let heading, heading >= 0, heading <= 360 else {
            return notAvailable(windKeys + distanceKeys, because: "the runway has no heading from 0 to 360 degrees")
        }
        let wind = weather.components(runwayHeading: heading)
        row["headwind"] = Self.number(wind.headwind) ?? Self.notAvailable
        row["crosswind"] = Self.number(wind.crosswind) ?? Self.notAvailable
        row["crosswindFrom"] = wind.from.map(WidgetValue.string) ?? .null
        row["wholeKnots"] = .object(wind.whole)
        if -wind.headwind > Decimal(maxTailwind) {
            return notAvailable(distanceKeys, because: "the tailwind of \(-wind.headwind) kt exceeds the \(maxTailwind) kt limit")
        }
        guard let distance = takeoffDistance(densityAltitude: weather.densityAltitude, headwind: wind.headwind, surface: surface)
        else {
            return notAvailable(distanceKeys, because: "the takeoff distance could not be computed")
        }
        row["takeoffDistance"] = Self.number(distance) ?? Self.notAvailable
        guard let length, length > 0 else {
            return notAvailable(["margin", "fits"], because: "the runway has no positive length in feet")
        }
        row["margin"] = Self.number(length - distance) ?? Self.notAvailable
        row["fits"] = .bool(length >= distance)
        return row
    }

    /// The takeoff distance in whole feet (rounded up), or `nil` when the factors leave no positive distance.
    func takeoffDistance(densityAltitude: Decimal, headwind: Decimal, surface: String?) -> Decimal? {
        let densityFactor = 1 + Decimal(string: "0.0001")! * densityAltitude
        let windFactor = headwind >= 0 ? 1 - Decimal(string: "0.01")! * headwind : 1 + Decimal(string: "0.05")! * -headwind
        let surfaceFactor = surface.map { Self.softSurfaces.contains($0.lowercased()) } == true ? Self.softSurfaceFactor : 1
        let distance = Decimal(baseDistance) * densityFactor * windFactor * surfaceFactor
        guard distance > 0 else { return nil }
        return Self.rounded(distance, places: 0, mode: .up)
    }

    // MARK: - Order

    /// The runways in the order the app lists them (`RunwaySnapshot.NameComparator`: the names compared
    /// as Finder compares file names, numbers by value, so "9" comes before "10" and "17L" before "17R").
    static func sortedByName(_ runways: [WidgetValue]) -> [WidgetValue] {
        func name(_ runway: WidgetValue) -> String {
            (runway["name"] ?? runway["ident"])?.string ?? ""
        }
        let options: String.CompareOptions = [.caseInsensitive, .numeric, .widthInsensitive]
        return runways.enumerated().sorted { lhs, rhs in
            switch name(lhs.element).compare(name(rhs.element), options: options) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs.offset < rhs.offset
            }
        }.map(\.element)
    }

    // MARK: - Numbers

    /// A number from a JSON number or a numeric string.
    static func decimal(_ value: WidgetValue?) -> Decimal? {
        switch value {
        case .number(let number)?: number.decimal
        case .string(let text)?: WidgetNumber(text.trimmingCharacters(in: .whitespaces))?.decimal
        default: nil
        }
    }

    static func number(_ value: Decimal) -> WidgetValue? {
        WidgetNumber(value).map(WidgetValue.number)
    }

    static func rounded(_ value: Decimal, places: Int, mode: NSDecimalNumber.RoundingMode = .plain) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, places, mode)
        return result.isZero ? 0 : result
    }
}
