// Sources/widgetd-round/RoundTransform.swift
import Foundation
import WidgetCore
import WidgetJSON

/// Rounds every number in a list: {"type": "round", "places": 2}
struct RoundTransform: Transformer {
    struct Options: Decodable, Sendable, DescribedOptions {
        var places: Int

        // Each key said once: its meaning, bounds and default, for the schema, the decoder and validate.
        enum CodingKeys: String, DescribedKey {
            case places

            var keyDescription: KeyDescription {
                switch self {
                case .places: KeyDescription("Digits after the decimal point.", .integer(minimum: 0, maximum: 10), default: 0)
                }
            }
        }
    }
    static let typeName = "round"
    static let summary = "Rounds every number of a list."

    let places: Int
    // The decoder has supplied the default and refused {"places": 11}: nothing is left to check.
    init(options: Options) {
        places = options.places
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
