public import WidgetCore
public import WidgetJSON

/// Turns Firestore's REST format into plain JSON: `"parser": "firestore"`.
///
/// Firestore wraps every value in its type (`{"stringValue": "hi"}`, `{"integerValue": "42"}`). This parser
/// unwraps them: strings, booleans and nulls as themselves, `integerValue` and `doubleValue` as exact
/// numbers, `timestampValue` and `referenceValue` as strings, `geoPointValue` as
/// `{"latitude", "longitude"}`, `bytesValue` as its base64 text, `mapValue` as an object, `arrayValue` as a
/// list. A document becomes its fields plus `_id` (the last segment of its `name`), `_name` (the full
/// name), `_createTime` and `_updateTime`.
///
/// Accepted payloads: one document (`GET …/documents/jokes/42`), a list response (`{"documents": […]}`,
/// giving a list), and a `runQuery` response (`[{"document": …, "readTime": …}, …]`, giving the list of
/// documents found).
///
/// ```json
/// {"fields": {"text": {"stringValue": "Why…"}, "likes": {"integerValue": "12"}}, "name": "projects/p/databases/(default)/documents/jokes/42"}
/// ```
/// becomes `{"_id": "42", "_name": "projects/…/jokes/42", "text": "Why…", "likes": 12}`.
public struct FirestoreParser: Parser {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// None: the parser takes no options.
        public enum CodingKeys: DescribedKey {
            public var keyDescription: KeyDescription { switch self {} }
        }
    }

    public static let typeName = "firestore"
    public static let summary = "Unwraps Firestore REST documents into plain JSON."

    public init(options: Options) {}

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        let root: WidgetValue
        do {
            root = try payload.valueLimits.readJSON(payload.data, "the Firestore response from \(payload.origin)")
        } catch let error as StageError {
            throw error
        } catch {
            throw StageError("the payload from \(payload.origin) is not valid JSON: \(error)")
        }
        return try Self.unwrapResponse(root, origin: payload.origin)
    }

    /// A response (document, list or query result) as plain JSON.
    ///
    /// - Throws: A `StageError` when `root` is none of those shapes, or a value has an unknown type.
    public static func unwrapResponse(_ root: WidgetValue, origin: String = "the source") throws -> WidgetValue {
        switch root {
        case .array(let results):
            // runQuery: [{"document": {...}, "readTime": ...}, {"readTime": ...}]
            var documents: [WidgetValue] = []
            for result in results {
                if let document = result["document"] { documents.append(try unwrapDocument(document)) }
            }
            return .array(documents)
        case .object(let object):
            if let error = object["error"] {
                let message = error["message"]?.string ?? "an error"
                throw StageError("Firestore answered \(origin) with an error: \(message)")
            }
            if object["fields"] != nil || object["name"] != nil {
                return try unwrapDocument(root)
            }
            if let documents = object["documents"]?.array {
                return .array(try documents.map(unwrapDocument))
            }
            if object.isEmpty { return .array([]) }  // An empty list response.
            throw StageError(
                "the JSON from \(origin) is not a Firestore document, list or query response: it has no \"fields\", \"name\" or \"documents\""
            )
        default:
            throw StageError("the JSON from \(origin) is not a Firestore response: it is a \(root.typeName), not an object or a list")
        }
    }

    /// One document: its fields, with `_id`, `_name`, `_createTime` and `_updateTime`.
    public static func unwrapDocument(_ document: WidgetValue) throws -> WidgetValue {
        var object = WidgetObject()
        if let name = document["name"]?.string {
            object["_id"] = .string(String(name.split(separator: "/").last ?? Substring(name)))
            object["_name"] = .string(name)
        }
        if let created = document["createTime"]?.string { object["_createTime"] = .string(created) }
        if let updated = document["updateTime"]?.string { object["_updateTime"] = .string(updated) }
        if case .object(let fields)? = document["fields"] {
            for (key, value) in fields {
                object[key] = try unwrapValue(value, at: key)
            }
        }
        return .object(object)
    }

    /// One typed value, `{"stringValue": "hi"}` → `"hi"`.
    ///
    /// - Throws: A `StageError` naming the field when the value has no known type.
    public static func unwrapValue(_ value: WidgetValue, at path: String = "value") throws -> WidgetValue {
        guard case .object(let typed) = value, let (type, inner) = typed.first(where: { _ in true }) else {
            throw StageError("the Firestore field \"\(path)\" is not a typed value like {\"stringValue\": \"…\"}")
        }
        switch type {
        case "stringValue", "timestampValue", "referenceValue", "bytesValue":
            return inner.string.map(WidgetValue.string) ?? inner
        case "booleanValue":
            return inner
        case "nullValue":
            return .null
        case "integerValue":
            if let text = inner.string, let number = WidgetNumber(text) { return .number(number) }
            return inner
        case "doubleValue":
            if case .string(let text) = inner {
                // NaN and Infinity come as strings; JSON has no number for them.
                return WidgetNumber(text).map(WidgetValue.number) ?? .string(text)
            }
            return inner
        case "geoPointValue":
            return .object([
                "latitude": inner["latitude"] ?? .number(0), "longitude": inner["longitude"] ?? .number(0),
            ])
        case "mapValue":
            var object = WidgetObject()
            if case .object(let fields)? = inner["fields"] {
                for (key, member) in fields { object[key] = try unwrapValue(member, at: "\(path).\(key)") }
            }
            return .object(object)
        case "arrayValue":
            let values = inner["values"]?.array ?? []
            return .array(try values.enumerated().map { try unwrapValue($1, at: "\(path)[\($0)]") })
        default:
            throw StageError(
                "the Firestore field \"\(path)\" has the unknown type \"\(type)\"; known types are stringValue, integerValue, doubleValue, booleanValue, nullValue, timestampValue, mapValue, arrayValue, referenceValue, geoPointValue and bytesValue"
            )
        }
    }
}
