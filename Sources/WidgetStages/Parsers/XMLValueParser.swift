import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

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
        public var forceList: [String]

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
        forceList = Set(options.forceList)
    }

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        let limits = payload.valueLimits
        let builder = XMLValueBuilder(forceList: forceList, maximumValues: limits.maximumValues)
        var data = payload.data
        if let transcoded = FeedInputRepair.transcodeToUTF8(data) {
            data = transcoded
        }
        if let entity = XMLInputGuard.declaredEntity(in: data) { throw XMLInputGuard.entityError(entity, origin: payload.origin) }
        let parser = XMLParser(data: XMLInputGuard.sanitized(FeedInputRepair.repairMarkup(data) ?? data))
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let limit = builder.exceededLimit {
            throw StageError(
                limits.message(
                    for: limit, what: "the XML from \(payload.origin)",
                    at: SourceLocation(line: parser.lineNumber, column: parser.columnNumber)))
        }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { $0.localizedDescription } ?? "it has no root element"
            throw StageError(
                "the payload from \(payload.origin) is not well-formed XML at line \(parser.lineNumber), column \(parser.columnNumber): \(reason)"
            )
        }
        return .object(WidgetObject([(root.name, root.value)]))
    }
}

/// Builds ``XMLValueParser``'s value from SAX events, within ``ValueLimits``: it stops the parser at the
/// first element whose value would nest deeper than ``ValueLimits/maximumDepth`` (the root's own object
/// counts) or make the document hold more than `maximumValues` values.
private final class XMLValueBuilder: NSObject, XMLParserDelegate {
    final class Node {
        let name: String
        var attributes: [(String, String)]
        var children: [(name: String, value: WidgetValue, depth: Int)] = []
        var text = ""
        /// The node's value and its depth, once it ended.
        var value: WidgetValue = .null
        var depth = 0

        init(name: String, attributes: [(String, String)]) {
            self.name = name
            self.attributes = attributes
        }

        /// Sets ``value`` and ``depth``; returns how many values the node adds besides its children's:
        /// itself, its attributes, its text member and the lists of its repeated children.
        func finish(forceList: Set<String>) -> Int {
            let trimmed = text.trimmingWhitespace()
            if attributes.isEmpty, children.isEmpty {
                value = .string(trimmed)
                depth = 0
                return 1
            }
            var object = WidgetObject()
            var added = 1 + attributes.count
            for (key, value) in attributes { object["@" + key] = .string(value) }
            var order: [String] = []
            var grouped: [String: (values: [WidgetValue], depth: Int)] = [:]
            for child in children {
                if grouped[child.name] == nil { order.append(child.name) }
                grouped[child.name, default: ([], 0)].values.append(child.value)
                grouped[child.name]!.depth = max(grouped[child.name]!.depth, child.depth)
            }
            var deepest = 0
            for key in order {
                let (values, childDepth) = grouped[key]!
                if values.count == 1 && !forceList.contains(key) {
                    object[key] = values[0]
                    deepest = max(deepest, childDepth)
                } else {
                    object[key] = .array(values)
                    deepest = max(deepest, childDepth + 1)
                    added += 1
                }
            }
            if !trimmed.isEmpty {
                object["#text"] = .string(trimmed)
                added += 1
            }
            children = []
            value = .object(object)
            depth = deepest + 1
            return added
        }
    }

    let forceList: Set<String>
    let maximumValues: Int
    var stack: [Node] = []
    var root: Node?
    /// The values the ended elements make.
    var valueCount = 0
    /// The limit the document passed, if any: reading stopped there.
    private(set) var exceededLimit: JSONSyntaxError.Limit?

    init(forceList: Set<String>, maximumValues: Int) {
        self.forceList = forceList
        self.maximumValues = maximumValues
    }

    private func stop(_ parser: XMLParser, _ limit: JSONSyntaxError.Limit) {
        exceededLimit = limit
        stack = []
        parser.abortParsing()
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard exceededLimit == nil else { return }
        // The root element is a member of the value's object: an element at depth n (the root at 1)
        // nests at least n deep.
        guard stack.count < ValueLimits.maximumDepth else { return stop(parser, .depth) }
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
        guard exceededLimit == nil, let node = stack.popLast() else { return }
        valueCount += node.finish(forceList: forceList)
        // With the object that holds the root, the value is one level deeper than the root's.
        if node.depth + stack.count + 1 > ValueLimits.maximumDepth { return stop(parser, .depth) }
        if valueCount > maximumValues { return stop(parser, .values) }
        if let parent = stack.last {
            parent.children.append((node.name, node.value, node.depth))
        } else {
            root = node
        }
    }
}
