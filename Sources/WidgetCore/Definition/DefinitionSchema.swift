public import WidgetJSON

/// The JSON Schema (draft 2020-12) of the definition format, for editors: made from ``DefinitionDocument``'s
/// key descriptions and the options each registered stage describes (``DescribedOptions``).
///
/// Every key has its description, default and allowed values. A stage's options are chosen by what
/// `validate` chooses them by: `type`, or for a source the `url` or `path` that implies it, or a parser's or
/// timeline's bare name. Objects are closed (`additionalProperties: false`) wherever `validate` rejects
/// unknown keys: everywhere but the options of a stage that does not describe them. What a pattern
/// cannot say (a template's or a JSONPath's syntax, a time zone Foundation does not know) is left to
/// `validate`.
///
/// ```swift
/// let schema = DefinitionSchema.make(registry: .builtIn)
/// print(JSONWriter.string(schema, style: .pretty))
/// ```
public enum DefinitionSchema {
    /// The JSON Schema dialect.
    public static let dialect = "https://json-schema.org/draft/2020-12/schema"

    /// The schema, with the stages of `registry`.
    public static func make(registry: StageRegistry) -> WidgetValue {
        var definitions = WidgetObject()
        definitions["source"] = .object(source(registry, extraKeys: [], defined: "source", into: &definitions))
        let parserKey = InputDefinition.CodingKeys.parser
        let inputKeys = [OptionKey(name: parserKey.rawValue, description: parserKey.keyDescription)]
        definitions["input"] = .object(source(registry, extraKeys: inputKeys, defined: "input", into: &definitions))
        let timelineKeys = TimelineDefinition.CodingKeys.allCases.filter { $0 != .type }.map {
            OptionKey(name: $0.rawValue, description: $0.keyDescription)
        }
        definitions["parser"] = .object(stage(.parser, registry, extraKeys: [], into: &definitions))
        definitions["transform"] = .object(stage(.transformer, registry, extraKeys: [], into: &definitions))
        definitions["timeline"] = .object(stage(.timeline, registry, extraKeys: timelineKeys, into: &definitions))

        let document = DefinitionDocument.shape.jsonSchema
        var schema: WidgetObject = [
            "$schema": .string(dialect),
            "$id": "https://widgetd.dev/schema/definition.json",
            "title": "widgetd widget definition",
            "description":
                "One widget (or, with instances, several): where its data comes from, how it is read, reshaped and dated, and when it is refreshed. Check a file with 'widgetd validate'.",
        ]
        for (key, value) in document { schema[key] = value }
        schema["$defs"] = .object(definitions)
        return .object(schema)
    }

    // MARK: - Stages

    /// The `$defs` name of a stage of `kind` named `typeName`.
    static func name(_ kind: StageKind, _ typeName: String) -> String {
        "\(kind).\(typeName)"
    }

    /// One stage's object: `type`, the keys its owner reads (`extraKeys`), and the stage's own options,
    /// closed when it describes them.
    static func stageObject(_ entry: StageRegistry.Entry, extraKeys: [OptionKey], typeRequired: Bool) -> WidgetObject {
        let typeKey = OptionKey(
            name: "type",
            description: KeyDescription(entry.summary, .oneOf([entry.typeName]), required: typeRequired)
        )
        var shape = entry.options ?? ObjectShape(keys: [], isOpen: true)
        let own = [typeKey] + extraKeys
        shape.keys = own + shape.keys.filter { key in !own.contains { $0.name == key.name } }
        var schema = shape.jsonSchema
        schema["description"] = .string(entry.summary)
        return schema
    }

    /// `{"type": NAME, …}` for every stage of `kind`, or its bare name for those that need no options.
    static func stage(_ kind: StageKind, _ registry: StageRegistry, extraKeys: [OptionKey], into definitions: inout WidgetObject)
        -> WidgetObject
    {
        let entries = registry.typeNames(of: kind).compactMap { registry.entry(kind, named: $0) }
        var choices: [WidgetValue] = []
        for entry in entries {
            let defined = name(kind, entry.typeName)
            definitions[defined] = .object(stageObject(entry, extraKeys: extraKeys, typeRequired: true))
            choices.append([
                "if": ["properties": ["type": ["const": .string(entry.typeName)]], "required": ["type"]],
                "then": ["$ref": .string("#/$defs/\(defined)")],
            ])
        }
        let object: WidgetObject = [
            "type": "object",
            "required": ["type"],
            "properties": [
                "type": ["description": .string("The registered \(kind) to use."), "enum": .array(entries.map { .string($0.typeName) })]
            ],
            "allOf": .array(choices),
        ]
        guard kind != .transformer else { return object }
        // A bare name stands for the stage with no options: allowed for the stages that build without any.
        let named = entries.filter { (try? registry.makeStage(kind, typeName: $0.typeName, options: [:])) != nil }
        return [
            "anyOf": [
                ["description": .string("A \(kind) that needs no options, by name."), "enum": .array(named.map { .string($0.typeName) })],
                .object(object),
            ]
        ]
    }

    /// A source object: by `type` when it has one, else by the key that implies its type (`url`, `path`).
    static func source(_ registry: StageRegistry, extraKeys: [OptionKey], defined prefix: String, into definitions: inout WidgetObject)
        -> WidgetObject
    {
        let sourceKeys = SourceReference.CodingKeys.allCases.filter { $0 != .type }.map {
            OptionKey(name: $0.rawValue, description: $0.keyDescription)
        }
        let entries = registry.typeNames(of: .fetcher).compactMap { registry.entry(.fetcher, named: $0) }
        var byType: [WidgetValue] = []
        for entry in entries {
            let defined = "\(prefix).\(entry.typeName)"
            definitions[defined] = .object(stageObject(entry, extraKeys: sourceKeys + extraKeys, typeRequired: false))
            byType.append([
                "if": ["properties": ["type": ["const": .string(entry.typeName)]], "required": ["type"]],
                "then": ["$ref": .string("#/$defs/\(defined)")],
            ])
        }
        // Without `type`: the first implied type whose key is there, as the reader tries them.
        var implied: WidgetValue = true
        for (key, typeName) in SourceReference.impliedTypes.reversed() {
            let then: WidgetValue =
                registry.entry(.fetcher, named: typeName) == nil ? false : ["$ref": .string("#/$defs/\(prefix).\(typeName)")]
            implied = ["if": ["required": [.string(key)]], "then": then, "else": implied]
        }
        var properties = WidgetObject()
        properties["type"] = [
            "description": .string(SourceReference.CodingKeys.type.keyDescription.summary),
            "enum": .array(entries.map { .string($0.typeName) }),
        ]
        for key in sourceKeys + extraKeys { properties[key.name] = key.description.jsonSchema }
        let needed = [WidgetValue.string("type")] + SourceReference.impliedTypes.map { .string($0.key) }
        return [
            "type": "object",
            "properties": .object(properties),
            "anyOf": .array(needed.map { ["required": [$0]] }),
            "if": ["required": ["type"]],
            "then": ["allOf": .array(byType)],
            "else": implied,
        ]
    }
}
