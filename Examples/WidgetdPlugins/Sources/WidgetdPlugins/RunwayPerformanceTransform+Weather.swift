import Foundation
import WidgetCore
import WidgetJSON

extension RunwayPerformanceTransform {
    /// The facts of one METAR that the model uses, with the pressure and density altitude worked out.
    struct Weather: Sendable {
        /// The wind's true direction in degrees; `nil` for variable wind (`VRB`) or calm.
        var direction: Decimal?
        /// The steady wind, knots.
        var speed: Decimal
        /// The gusts, knots; `nil` when none were reported.
        var gust: Decimal?
        /// Outside air temperature, °C.
        var temperature: Decimal
        /// QNH, hPa.
        var altimeter: Decimal
        /// Pressure altitude, feet.
        var pressureAltitude: Decimal
        /// Density altitude, feet.
        var densityAltitude: Decimal
        /// What the widget shows about the weather.
        var summary: WidgetObject

        /// Standard sea-level pressure, hPa.
        static let standardPressure = Decimal(string: "1013.25")!
        /// Feet of altitude per hPa of pressure (rule of thumb).
        static let feetPerHectopascal: Decimal = 30
        /// hPa per inHg.
        static let hectopascalsPerInch = Decimal(string: "33.8639")!
        /// Feet per metre.
        static let feetPerMetre = Decimal(string: "3.28084")!

        /// Reads a METAR (one report or the list the API answers); `nil` when there is no usable report:
        /// none at all, or one without wind speed or temperature, or no elevation in either the airport
        /// or the report.
        init?(metar: WidgetValue?, airportElevation: Decimal?) {
            let report: WidgetObject
            switch metar {
            case .object(let object)? where !object.isEmpty: report = object
            case .array(let list)?:
                guard case .object(let first)? = list.first else { return nil }
                report = first
            default: return nil
            }
            guard let speed = RunwayPerformanceTransform.decimal(report["wspd"]), speed >= 0,
                let temperature = RunwayPerformanceTransform.decimal(report["temp"])
            else { return nil }
            let metreElevation = RunwayPerformanceTransform.decimal(report["elev"]).map { $0 * Self.feetPerMetre }
            guard let elevation = airportElevation ?? metreElevation else { return nil }
            self.speed = speed
            self.temperature = temperature
            if let gust = RunwayPerformanceTransform.decimal(report["wgst"]), gust > speed { self.gust = gust }
            if let direction = RunwayPerformanceTransform.decimal(report["wdir"]), speed > 0 {
                self.direction = direction
            }
            var altimeter = RunwayPerformanceTransform.decimal(report["altim"]) ?? Self.standardPressure
            if altimeter < 100 { altimeter *= Self.hectopascalsPerInch }
            self.altimeter = altimeter
            pressureAltitude = elevation + Self.feetPerHectopascal * (Self.standardPressure - altimeter)
            let isaTemperature = 15 - Decimal(string: "0.002")! * pressureAltitude
            densityAltitude = pressureAltitude + 120 * (temperature - isaTemperature)

            func number(_ value: Decimal?) -> WidgetValue {
                value.flatMap(RunwayPerformanceTransform.number) ?? nil
            }
            summary = [
                "station": report["icaoId"] ?? nil,
                "observed": report["reportTime"] ?? nil,
                "raw": report["rawOb"] ?? nil,
                "windDirection": direction == nil && speed > 0 ? "VRB" : number(direction),
                "windSpeed": number(speed),
                "windGust": number(gust),
                "temperature": number(temperature),
                "altimeter": number(RunwayPerformanceTransform.rounded(altimeter, places: 1)),
                "pressureAltitude": number(RunwayPerformanceTransform.rounded(pressureAltitude, places: 0)),
                "densityAltitude": number(RunwayPerformanceTransform.rounded(densityAltitude, places: 0)),
            ]
        }

        /// The wind components for a runway from the steady wind, as SF50 Runways computes them
        /// (`RunwaySnapshot.headwind(conditions:)` and `crosswind(conditions:)`): with θ = wind direction −
        /// runway heading, headwind = V·cos θ (negative: a tailwind) and crosswind = V·sin θ, where V is the
        /// steady wind; gusts do not enter. Variable wind (`VRB`, no direction) and calm give no components,
        /// as in the app. `headwind` and the crosswind's size are rounded to 0.1 kt; `from` is the side the
        /// crosswind blows from; `whole` holds what the app's medium widget writes beside its arrows.
        func components(runwayHeading: Decimal) -> WindComponents {
            guard speed > 0, let direction else { return WindComponents(along: 0, across: 0) }
            let angle = (NSDecimalNumber(decimal: direction - runwayHeading).doubleValue) * .pi / 180
            let knots = NSDecimalNumber(decimal: speed).doubleValue
            return WindComponents(along: knots * cos(angle), across: knots * sin(angle))
        }

        /// `value` rounded to 0.1, as an exact decimal (never −0).
        static func tenths(_ value: Double) -> Decimal {
            let scaled = (value * 10).rounded()
            guard scaled != 0 else { return 0 }
            return Decimal(Int(scaled)) / 10
        }
    }

    /// A runway's wind components in knots (see ``Weather/components(runwayHeading:)``).
    struct WindComponents: Sendable, Equatable {
        /// The component along the runway, knots: positive a headwind, negative a tailwind.
        var along: Double
        /// The component across the runway, knots: positive from the right, negative from the left.
        var across: Double

        /// The headwind rounded to 0.1 kt (negative: a tailwind).
        var headwind: Decimal { Weather.tenths(along) }
        /// The crosswind's size rounded to 0.1 kt.
        var crosswind: Decimal { Weather.tenths(abs(across)) }
        /// The side the crosswind blows from, `nil` when it rounds to 0.0 kt.
        var from: String? {
            let tenths = Weather.tenths(across)
            return tenths == 0 ? nil : (tenths > 0 ? "right" : "left")
        }

        /// What the app's medium widget writes beside its wind arrows (`RunwayListItem.swift`): each
        /// component's size in whole knots, rounded half to even, and only when the component rounds to at
        /// least 1 kt; `nil` otherwise.
        var whole: WidgetObject {
            func shown(_ value: Double) -> WidgetValue {
                guard value.rounded() >= 1 else { return .null }
                return .number(WidgetNumber(Int(value.rounded(.toNearestOrEven))))
            }
            return ["headwind": shown(along), "tailwind": shown(-along), "crosswind": shown(abs(across))]
        }
    }
}
