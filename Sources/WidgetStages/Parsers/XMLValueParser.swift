import Foundation
public import WidgetCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Turns any XML document into a value: `"parser": "xml"`.
///
/// The root element becomes the value's only member, keyed by its name. Each element becomes:
/// - a string, when it has only text (or nothing: `""`) and no attributes;
/// - otherwise an object whose members are its attributes (keys prefixed with `@`), its child elements
///   (by name; an element repeated under the same parent becomes a list, in order) and its text under
///   `#text` (when it has any besides whitespace).
///
/// Names keep their prefixes as written (`dc:creator`); namespace declarations are dropped. Text is
/// trimmed of surrounding whitespace. Values stay strings: use `map` to turn them into numbers.
///
/// ```xml
/// <rates base="EUR"><rate currency="USD">1.08</rate><rate currency="GBP">0.85</rate></rates>
/// ```
/// becomes `{"rates": {"@base": "EUR", "rate": [{"@currency": "USD", "#text": "1.08"}, {"@currency": "GBP", "#text": "0.85"}]}}`.
///
/// Options: `forceList` — element names that always become lists, even when they occur once.
public struct XMLValueParser: Parser {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// Element names that are always lists (`["item"]`), so that one item is not read as an object.
        public var forceList: [String]?

        public enum CodingKeys: String, DescribedKey {
            case forceList

            public var keyDescription: KeyDescription {
                switch self {
                case .forceList:
                    KeyDescription("Element names that always become lists, even when they occur once.", .array(.string()), default: [])
                }
            }
        }
    }

    public static let typeName = "xml"
    public static let summary = "Parses any XML: elements to objects, repeated elements to lists."

    /// Child element names, prefix included as written, that always become lists; empty by default.
    public let forceList: Set<String>

    public init(options: Options) {
        forceList = Set(options.forceList ?? [])
    }

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        let builder = XMLValueBuilder(forceList: forceList)
        var data = payload.data
        if let transcoded = FeedInputRepair.transcodeToUTF8(data) {
            data = transcoded
        }
        if let entity = XMLInputGuard.declaredEntity(in: data) { throw XMLInputGuard.entityError(entity, origin: payload.origin) }
        let parser = XMLParser(data: XMLInputGuard.sanitized(FeedInputRepair.repairMarkup(data) ?? data))
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let reason = parser.parserError.map { $0.localizedDescription } ?? "it has no root element"
            throw StageError(
                "the payload from \(payload.origin) is not well-formed XML at line \(parser.lineNumber), column \(parser.columnNumber): \(reason)"
            )
        }
        return .object(WidgetObject([(root.name, root.value(forceList: forceList))]))
    }
}

/// Builds ``XMLValueParser``'s value from SAX events.
private final class XMLValueBuilder: NSObject, XMLParserDelegate {
    final class Node {
        let name: String
        var attributes: [(String, String)]
        var children: [(String, WidgetValue)] = []
        var text = ""

        init(name: String, attributes: [(String, String)]) {
            self.name = name
            self.attributes = attributes
        }

        func value(forceList: Set<String>) -> WidgetValue {
            let trimmed = text.trimmingWhitespace()
            if attributes.isEmpty, children.isEmpty { return .string(trimmed) }
            var object = WidgetObject()
            for (key, value) in attributes { object["@" + key] = .string(value) }
            var order: [String] = []
            var grouped: [String: [WidgetValue]] = [:]
            for (key, value) in children {
                if grouped[key] == nil { order.append(key) }
                grouped[key, default: []].append(value)
            }
            for key in order {
                let values = grouped[key]!
                object[key] = values.count == 1 && !forceList.contains(key) ? values[0] : .array(values)
            }
            if !trimmed.isEmpty { object["#text"] = .string(trimmed) }
            return .object(object)
        }
    }

    let forceList: Set<String>
    var stack: [Node] = []
    var root: Node?

    init(forceList: Set<String>) {
        self.forceList = forceList
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let kept = attributes.filter { !$0.key.hasPrefix("xmlns") }.sorted { $0.key < $1.key }
        stack.append(Node(name: name, attributes: kept))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        stack.last?.text += String(decoding: block, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard let node = stack.popLast() else { return }
        if let parent = stack.last {
            parent.children.append((node.name, node.value(forceList: forceList)))
        } else {
            root = node
        }
    }
}
