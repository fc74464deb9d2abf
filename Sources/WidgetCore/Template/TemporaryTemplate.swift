// Interim: replaced by the full Liquid implementation.
public import Foundation

public struct Template: Sendable, Hashable, CustomStringConvertible, Decodable {
    public let source: String
    public init(_ source: String, filters: FilterRegistry = .standard) throws(ExpressionError) {
        self.source = source
    }
    public var description: String { source }
    public var isConstant: Bool { !source.contains("{{") }
    public var variables: Set<String> { [] }
    public func render(_ scope: TemplateScope) throws(ExpressionError) -> WidgetValue { .string(source) }
    public func renderString(_ scope: TemplateScope) throws(ExpressionError) -> String { source }
    public init(from decoder: any Decoder) throws {
        source = try decoder.singleValueContainer().decode(String.self)
    }
}

public struct FilterRegistry: Sendable, Hashable {
    public static let standard = FilterRegistry()
    public static let userInfoKey = CodingUserInfoKey(rawValue: "widgetd.filters")!
}

public struct TemplateScope: Sendable {
    public var globals: WidgetObject
    public var item: WidgetValue?
    public var now: Date
    public var timeZone: TimeZone
    public init(globals: WidgetObject = [:], item: WidgetValue? = nil, now: Date = Date(), timeZone: TimeZone = .current) {
        self.globals = globals
        self.item = item
        self.now = now
        self.timeZone = timeZone
    }
}
