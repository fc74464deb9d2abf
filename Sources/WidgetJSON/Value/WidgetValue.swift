import Foundation

/// The JSON-like value that flows between the stages of a widget's pipeline.
///
/// Numbers are exact (``WidgetNumber``) and objects keep their order (``WidgetObject``). Values are
/// immutable, `Sendable` and cheap to copy.
///
/// ```swift
/// let item: WidgetValue = ["title": "Sunflowers", "price": 12.5, "tags": ["art", "oil"]]
/// print(item["title"]?.string ?? "") // Sunflowers
/// ```
public enum WidgetValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, exact and with the digits it was written with.
    case number(WidgetNumber)
    /// A string.
    case string(String)
    /// An array of values.
    case array([WidgetValue])
    /// An object, its members in the order they were written.
    case object(WidgetObject)
}

// MARK: - Accessors

extension WidgetValue {
    /// The member named `key` of an object; `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> WidgetValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` of an array (negative counts from the end); `nil` when out of range.
    public subscript(index: Int) -> WidgetValue? {
        guard case .array(let array) = self else { return nil }
        let position = index < 0 ? array.count + index : index
        // Not a `? :` with `nil`: WidgetValue is ExpressibleByNilLiteral, so that `nil` would be `.null`.
        guard array.indices.contains(position) else { return nil }
        return array[position]
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, for a `bool`; `nil` for any other value (no conversion).
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, for a `number`; `nil` for any other value (a numeric string included).
    public var number: WidgetNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The text, for a `string`; `nil` for any other value (a number included).
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, for an `array`; `nil` for any other value.
    public var array: [WidgetValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, for an `object`; `nil` for any other value.
    public var object: WidgetObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The JSON type name, for error messages: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Liquid truthiness: everything except `nil` and `false` is true.
    public var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        default: true
        }
    }

    /// Whether a template used as a test (a filter's `if`, a source's `when`) passes: Liquid's truthiness,
    /// except that an empty string fails too, since a template that reads missing data renders one
    /// (`"{{ a }}{{ b }}"`). `0` and `[]` pass.
    public var passesTest: Bool {
        isTruthy && self != .string("")
    }
}

// MARK: - Literals

extension WidgetValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(WidgetNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(WidgetNumber(floatLiteral: value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: WidgetValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, WidgetValue)...) {
        self = .object(WidgetObject(elements))
    }
}

// MARK: - Codable

extension WidgetValue: Codable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [WidgetValue] = []
            while !array.isAtEnd { elements.append(try array.decode(WidgetValue.self)) }
            self = .array(elements)
            return
        }
        if let keyed = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var object = WidgetObject()
            for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(WidgetValue.self, forKey: key) }
            self = .object(object)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else if let value = try? single.decode(Decimal.self), let number = WidgetNumber(value) {
            self = .number(number)
        } else if let value = try? single.decode(Double.self), let number = WidgetNumber(value) {
            self = .number(number)
        } else {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "Not a JSON value.")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            if let int = value.int {
                try single.encode(int)
            } else if let decimal = value.decimal {
                try single.encode(decimal)
            } else {
                try single.encode(value.double)
            }
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(element) }
        case .object(let object):
            var keyed = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in object { try keyed.encode(value, forKey: AnyCodingKey(key)) }
        }
    }
}

/// A coding key for any string or index.
public struct AnyCodingKey: CodingKey, Sendable, Hashable {
    /// The key's text: the member name, or the index written in decimal.
    public var stringValue: String
    /// The index, for an array element's key; `nil` for a member name.
    public var intValue: Int?

    /// Creates the key of the object member `string`.
    public init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    /// Creates the key of the array element at `index`.
    public init(index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    /// Creates the key of the object member `stringValue`; never fails.
    public init?(stringValue: String) { self.init(stringValue) }
    /// Creates the key of the array element at `intValue`; never fails.
    public init?(intValue: Int) { self.init(index: intValue) }
}
