import Foundation
public import WidgetJSON
import WidgetLiquid

/// Decodes a stage's `Decodable` options — and a whole widget definition — from a `WidgetValue`, strictly.
///
/// Beyond what `Decodable` checks, the decoder rejects object members that the type never asked for, with a
/// "did you mean" hint drawn from the keys it did ask for (in the order a ``DescribedKey`` type lists them,
/// else sorted). Numbers decode exactly into integer types (a fraction is an error, not truncated). Errors
/// become ``OptionsError``s that carry the JSON path of the bad value.
///
/// ```swift
/// struct Options: Decodable { var count: Int; var offset: Int? }
/// let options = try OptionsDecoder().decode(Options.self, from: ["count": 4, "ofset": 1])
/// // throws: $.ofset: unknown key 'ofset'; did you mean 'offset'?
/// ```
///
/// ``decode(_:from:problems:)`` reads on past problems instead of stopping at the first: the definition's
/// types report each bad member and go on, so one read of a definition reports every problem in it.
public struct OptionsDecoder: Sendable {
    /// Values handed to `Decodable` implementations through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        didSet { plainUserInfo = Self.plain(userInfo) }
    }

    /// ``userInfo`` as `Decoder.userInfo` types it, converted once rather than for every decode.
    private var plainUserInfo: PlainUserInfo

    /// More keys to suggest when a key of the top-level object is unknown: those its owner reads beside
    /// the options (a source's `when`), which the options type never asks for. Not listed as known keys.
    public var hintKeys: [String] = []

    /// Creates a decoder that hands `userInfo` to the types it decodes (a `FilterRegistry`, for example).
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
        plainUserInfo = Self.plain(userInfo)
    }

    private static func plain(_ userInfo: [CodingUserInfoKey: any Sendable]) -> PlainUserInfo {
        // The same keys in the same table: `mapValues` hashes none of them again.
        PlainUserInfo(values: userInfo.mapValues { $0 as Any })
    }

    /// An immutable copy of `Sendable` values, typed as `Any` for `Decoder.userInfo`, with what templates
    /// are compiled with looked up once for every decode.
    private final class PlainUserInfo: @unchecked Sendable {
        let values: [CodingUserInfoKey: Any]
        /// The values' template cache, if any.
        let templates: TemplateCache?
        /// The cache's filters, else the values' filters, else the standard ones.
        let filters: FilterRegistry

        init(values: [CodingUserInfoKey: Any]) {
            self.values = values
            templates = values[TemplateCache.userInfoKey] as? TemplateCache
            filters = templates?.filters ?? values[FilterRegistry.userInfoKey] as? FilterRegistry ?? .standard
        }
    }

    private func makeTracker(collects: Bool) -> KeyTracker {
        KeyTracker(
            userInfo: plainUserInfo.values, templates: plainUserInfo.templates, filters: plainUserInfo.filters, collects: collects,
            hintKeys: hintKeys)
    }

    /// Decodes `type` from `value`.
    ///
    /// - Throws: ``OptionsError`` naming the path of the first bad or unknown value.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue) throws(OptionsError) -> T {
        let tracker = makeTracker(collects: false)
        let result: T
        do {
            result = try ValueDecoder(value: value, node: tracker.root, tracker: tracker).decode(T.self)
        } catch {
            throw tracker.problem(from: error)
        }
        if let unknown = tracker.unknownKeys(all: false).first { throw unknown }
        return result
    }

    /// Decodes `type` from `value`, appending every problem to `problems`: the bad members a type reports
    /// through `DescribedMembers` (reading on past each), then every unknown key.
    ///
    /// - Returns: the value, or `nil` when a problem left it impossible to make.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue, problems: inout [OptionsError]) -> T? {
        let tracker = makeTracker(collects: true)
        var result: T?
        do {
            result = try ValueDecoder(value: value, node: tracker.root, tracker: tracker).decode(T.self)
        } catch {
            tracker.record(error, abandoningFrom: 0)
        }
        problems += tracker.problems
        problems += tracker.unknownKeys(all: true)
        return result
    }
}

extension OptionsError {
    /// Converts a `DecodingError` into a sentence with a path.
    public init(decodingError error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            let path = ValuePath(codingPath: context.codingPath)
            self.init(path: path, message: "missing required key '\(key.stringValue)'")
        case .valueNotFound(let type, let context):
            self.init(
                path: ValuePath(codingPath: context.codingPath),
                message: "expected \(OptionsError.describe(type)), found null"
            )
        case .typeMismatch(let type, let context):
            let found = context.debugDescription.hasPrefix("found ") ? ", \(context.debugDescription)" : ""
            self.init(
                path: ValuePath(codingPath: context.codingPath),
                message: "expected \(OptionsError.describe(type))\(found)"
            )
        case .dataCorrupted(let context):
            let path = ValuePath(codingPath: context.codingPath)
            if let expression = context.underlyingError as? ExpressionError {
                self.init(path: path, message: expression.description, expressionColumn: expression.column)
            } else if let tree = context.underlyingError as? TemplateTreeError {
                self.init(path: path.appending(tree.path), message: tree.message, expressionColumn: tree.error.column)
            } else if let options = context.underlyingError as? OptionsError {
                self = options
                self.path = path.appending(options.path)
            } else {
                self.init(path: path, message: context.debugDescription)
            }
        @unknown default:
            self.init(path: .root, message: "\(error)")
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "a whole number"
        case is Double.Type, is Float.Type, is Decimal.Type: "a number"
        case is [Any].Type: "an array"
        default:
            if "\(type)".hasPrefix("Array<") {
                "an array"
            } else if "\(type)".hasPrefix("Dictionary<") {
                "an object"
            } else {
                "a value of type \(type)"
            }
        }
    }
}
