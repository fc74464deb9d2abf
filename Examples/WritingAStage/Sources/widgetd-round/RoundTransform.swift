// Sources/widgetd-round/RoundTransform.swift
import Foundation
import WidgetCore
import WidgetJSON

/// Rounds every number in a list: {"type": "round", "places": 2}
struct RoundTransform: Transformer {
    struct Options: Decodable, Sendable { var places: Int? }
    static let typeName = "round"
    static let summary = "Rounds every number of a list."

    let places: Int
    init(options: Options) throws {
        places = options.places ?? 0
        guard (0...10).contains(places) else { throw StageError("\"places\" must be from 0 to 10", option: "places") }
    }

    func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else { throw StageError("round needs a list, not \(value.typeName)") }
        return .array(
            items.map { item in
                guard let number = item.number?.decimal else { return item }
                var rounded = Decimal()
                var input = number
                NSDecimalRound(&rounded, &input, places, .plain)
                return WidgetNumber(rounded).map(WidgetValue.number) ?? item
            })
    }
}
