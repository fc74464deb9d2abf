import Foundation
public import WidgetCore

/// `widgetd schema`: the JSON Schema of the definition format.
public struct SchemaCommand: WidgetCommand {
    public static let name = "schema"
    public static let summary = "Print a JSON Schema (2020-12) of the definition format, for editors."
    public static let help = """
        Usage: widgetd schema

        Prints a JSON Schema (draft 2020-12) of a widget definition. Point your editor at it (for
        example with "$schema" in each file, or your editor's JSON schema settings) to get completion
        and checks as you type. Stage type names are those registered in this build of widgetd; each
        stage's own options are checked by 'widgetd validate'.
        """

    public init(arguments: inout Arguments) throws(UsageError) {}

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        environment.print(JSONWriter.string(DefinitionSchema.make(registry: environment.registry), style: .pretty))
        return 0
    }
}

/// Builds the JSON Schema of the definition format.
public enum DefinitionSchema {
    static let durationPattern = "^([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?$"

    /// The schema, with the stage type names of `registry` as suggestions.
    public static func make(registry: StageRegistry) -> WidgetValue {
        func names(_ kind: StageKind) -> WidgetValue { .array(registry.typeNames(of: kind).map(WidgetValue.string)) }
        let duration: WidgetValue = ["type": "string", "pattern": .string(durationPattern), "minLength": 2, "examples": ["15m", "24h", "1h30m"]]
        let stageObject: (StageKind) -> WidgetValue = { kind in
            [
                "type": "object",
                "required": ["type"],
                "properties": ["type": ["type": "string", "examples": names(kind)]],
                "additionalProperties": true,
            ]
        }
        let parser: WidgetValue = [
            "description": "A parser: its name, or an object with \"type\" and the parser's options.",
            "oneOf": [["type": "string", "examples": names(.parser)], stageObject(.parser)],
        ]
        let source: WidgetValue = [
            "description": "A source: {\"url\": …} is HTTP, {\"path\": …} a local file, {\"type\": NAME, …} any registered source.",
            "type": "object",
            "anyOf": [["required": ["url"]], ["required": ["path"]], ["required": ["type"]]],
            "properties": [
                "type": ["type": "string", "examples": names(.fetcher)],
                "url": ["type": "string"],
                "path": ["type": "string"],
                "method": ["type": "string"],
                "headers": ["type": "object", "additionalProperties": ["type": "string"]],
                "body": [:],
                "timeout": duration,
                "maxBytes": ["type": "integer", "minimum": 1],
                "when": [
                    "type": "string",
                    "description": "A template: when it gives nil, false or \"\", the source is not fetched and its value is null.",
                    "examples": ["{{ inputs.airport.id }}"],
                ],
            ],
            "additionalProperties": true,
        ]
        var inputSource = source.object!
        var inputProperties = inputSource["properties"]!.object!
        inputProperties["parser"] = parser
        inputSource["properties"] = .object(inputProperties)
        let schedule: WidgetValue = [
            "oneOf": [
                ["enum": ["atEnd", "never"]],
                [
                    "type": "object",
                    "properties": [
                        "every": duration,
                        "at": [
                            "oneOf": [
                                ["type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9](:[0-5][0-9])?$"],
                                ["type": "array", "minItems": 1, "items": ["type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9](:[0-5][0-9])?$"]],
                            ]
                        ],
                        "cron": ["type": "string", "examples": ["0 */4 * * *", "@daily"]],
                        "jitter": duration,
                        "maxPerDay": ["type": "integer", "minimum": 1],
                        "allowFrequent": ["type": "boolean"],
                    ],
                    "additionalProperties": false,
                    "oneOf": [["required": ["every"]], ["required": ["at"]], ["required": ["cron"]]],
                ],
            ]
        ]
        let timeline: WidgetValue = [
            "oneOf": [
                ["type": "string", "examples": names(.timeline)],
                [
                    "type": "object",
                    "required": ["type"],
                    "properties": [
                        "type": ["type": "string", "examples": names(.timeline)],
                        "relevance": ["type": "string"],
                        "url": ["type": "string"],
                        "limit": ["type": "integer", "minimum": 1],
                    ],
                    "additionalProperties": true,
                ],
            ]
        ]
        let id: WidgetValue = ["type": "string", "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$"]
        let properties: WidgetObject = [
            "$schema": ["type": "string"],
            "id": id,
            "title": ["type": "string"],
            "description": ["type": "string"],
            "timeZone": ["type": "string", "examples": ["America/New_York", "Europe/Paris", "UTC"]],
            "inputs": ["type": "object", "additionalProperties": .object(inputSource)],
            "source": source,
            "parser": parser,
            "transforms": ["type": "array", "items": stageObject(.transformer)],
            "timeline": timeline,
            "schedule": schedule,
            "staleAfter": duration,
            "deadline": duration,
            "fallback": [
                "type": "object",
                "properties": [
                    "keep": ["type": "integer", "minimum": 1, "maximum": 10000],
                    "pick": ["enum": .array(FallbackPolicy.Pick.allCases.map { .string($0.rawValue) })],
                ],
                "additionalProperties": false,
            ],
            "placeholder": [:],
            "instances": [
                "type": "array",
                "minItems": 1,
                "items": [
                    "type": "object",
                    "required": ["id"],
                    "properties": ["id": ["type": "string"], "title": ["type": "string"], "params": ["type": "object"]],
                    "additionalProperties": false,
                ],
            ],
        ]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://widgetd.dev/schema/definition.json",
            "title": "widgetd widget definition",
            "type": "object",
            "required": ["source"],
            "properties": .object(properties),
            "additionalProperties": false,
        ]
    }
}
