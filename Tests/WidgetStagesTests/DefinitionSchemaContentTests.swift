import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

/// What `widgetd schema` says about each key, made from the definition model and the stages' own
/// descriptions of their options.
struct DefinitionSchemaContentTests {
    private let schema = DefinitionSchema.make(registry: .builtIn)

    /// Every member of every `properties` object in `value`, by path.
    private func properties(of value: WidgetValue, at path: String = "#") -> [(path: String, schema: WidgetValue)] {
        var found: [(String, WidgetValue)] = []
        switch value {
        case .object(let object):
            for (key, member) in object {
                if key == "properties", case .object(let properties) = member {
                    for (name, property) in properties { found.append(("\(path)/properties/\(name)", property)) }
                }
                found += self.properties(of: member, at: "\(path)/\(key)")
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() { found += properties(of: element, at: "\(path)/\(index)") }
        default:
            break
        }
        return found
    }

    private func definition(_ name: String) throws -> WidgetValue {
        try #require(schema["$defs"]?[name], "no $defs/\(name)")
    }

    @Test func everyKeyHasADescription() {
        let undescribed = properties(of: schema).filter { path, property in
            // `type` inside `if` only selects a branch; the branch describes it.
            !path.contains("/if/") && (property["description"]?.string ?? "").isEmpty
        }
        #expect(undescribed.map(\.path) == [])
        #expect(properties(of: schema).count > 100)
    }

    @Test func everyBuiltInStageDescribesItsOptionsAndIsClosed() throws {
        for entry in StageRegistry.builtIn.allEntries {
            #expect(entry.options != nil, "\(entry.typeName)")
            let prefixes = entry.kind == .fetcher ? ["source", "input"] : ["\(entry.kind)"]
            for prefix in prefixes {
                let stage = try definition("\(prefix).\(entry.typeName)")
                #expect(stage["additionalProperties"] == false, "\(prefix).\(entry.typeName)")
                #expect(stage["description"]?.string == entry.summary)
                #expect(stage["properties"]?["type"]?["enum"] == [.string(entry.typeName)])
            }
        }
    }

    @Test func everyReferenceResolves() {
        func references(_ value: WidgetValue) -> [String] {
            switch value {
            case .object(let object): object.flatMap { key, member in key == "$ref" ? [member.string ?? ""] : references(member) }
            case .array(let elements): elements.flatMap(references)
            default: []
            }
        }
        let all = references(schema)
        #expect(all.count > 20)
        for reference in all {
            #expect(reference.hasPrefix("#/$defs/"))
            #expect(schema["$defs"]?[String(reference.dropFirst("#/$defs/".count))] != nil, "\(reference)")
        }
    }

    @Test func theTopLevelIsTheDocumentsKeysAndNothingElse() {
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema["properties"]?.object?.keys == DefinitionReader.topLevelKeys)
        #expect(schema["required"] == ["source"])
        #expect(schema["additionalProperties"] == false)
    }

    @Test func defaultsAndAllowedValuesAreStated() throws {
        let top = try #require(schema["properties"])
        #expect(top["parser"]?["default"] == "json")
        #expect(top["timeline"]?["default"] == "single")
        #expect(top["deadline"]?["default"] == "1m")
        #expect(top["schedule"]?["default"] == ["every": "1h"])
        #expect(top["fallback"]?["properties"]?["pick"]?["enum"] == ["latest", "daily", "random"])
        #expect(top["fallback"]?["properties"]?["keep"]?["default"] == 1)
        #expect(top["schedule"]?["anyOf"]?[0]?["enum"] == ["atEnd", "never"])
        // No daily cap unless a definition sets one: maxPerDay has no default.
        #expect(top["schedule"]?["anyOf"]?[1]?["properties"]?["maxPerDay"]?["minimum"] == 1)
        #expect(top["schedule"]?["anyOf"]?[1]?["properties"]?["maxPerDay"]?["default"] == nil)
        #expect(try definition("transform.limit")["properties"]?["offset"]?["default"] == 0)
        #expect(try definition("transform.sort")["properties"]?["order"]?["enum"] == ["ascending", "descending", "asc", "desc"])
        #expect(try definition("parser.json")["properties"]?["empty"]?["enum"] == ["error", "null"])
        #expect(try definition("source.http")["properties"]?["timeout"]?["default"] == "30s")
        #expect(try definition("source.http")["properties"]?["maxBytes"]?["default"] == 10_485_760)
        #expect(try definition("transform.assets")["properties"]?["concurrency"]?["maximum"] == 32)
        #expect(try definition("input.http")["properties"]?["parser"]?["$ref"] == "#/$defs/parser")
    }

    @Test func aBareNameIsAllowedForTheStagesThatNeedNoOptions() throws {
        #expect(try definition("parser")["anyOf"]?[0]?["enum"] == ["feed", "firestore", "json", "text", "xml"])
        #expect(try definition("timeline")["anyOf"]?[0]?["enum"] == ["single"])
        #expect(try definition("transform")["anyOf"] == nil)
    }

    /// A plugin's stage whose options do not describe themselves.
    private struct PlainTransform: Transformer {
        struct Options: Decodable, Sendable { var factor: Int }
        static let typeName = "plain"
        static let summary = "Does nothing."
        init(options: Options) {}
        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    @Test func aStageWhoseOptionsAreNotDescribedAcceptsAnyOptions() throws {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(PlainTransform.self)
        let registry = try builder.build()
        #expect(registry.entry(.transformer, named: "plain")?.options == nil)
        let plain = try #require(DefinitionSchema.make(registry: registry)["$defs"]?["transform.plain"])
        #expect(plain["additionalProperties"] == nil)
        #expect(plain["properties"]?.object?.keys == ["type"])
        #expect(plain["description"] == "Does nothing.")
    }
}
