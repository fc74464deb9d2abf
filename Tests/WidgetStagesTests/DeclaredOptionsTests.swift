import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

/// A key's description, default and bounds are declared once, in its `KeyDescription`, and the schema,
/// the decoder and `validate` all read that one declaration.
struct DeclaredOptionsTests {
    /// The options of the built-in stage `typeName` of `kind`, as the registry builds them.
    private func make(_ kind: StageKind, _ typeName: String, _ options: WidgetObject) throws(OptionsError) -> any Stage {
        try StageRegistry.builtIn.makeStage(kind, typeName: typeName, options: .object(options))
    }

    @Test func aBoundDeclaredOnceIsEnforcedByTheDecoderAndShownByTheSchema() throws {
        // The decoder refuses what the declaration bounds, with validate's sentence, at the key.
        #expect(throws: OptionsError(path: ValuePath.root.appending("offset"), message: #""offset" must be 0 or more, not -1"#)) {
            try LimitTransform.Options.decoded(["count": 2, "offset": -1])
        }
        // An absent key is its declared default; so is a null one.
        #expect(try LimitTransform.Options.decoded(["count": 2]).offset == 0)
        #expect(try LimitTransform.Options.decoded(["count": 2, "offset": nil]).offset == 0)
        // The schema shows the same bound and default.
        let schema = DefinitionSchema.make(registry: .builtIn)
        let offset = schema["$defs"]?["transform.limit"]?["properties"]?["offset"]
        #expect(offset?["minimum"] == 0)
        #expect(offset?["default"] == 0)
    }

    @Test func choicesDeclaredOnceAreEnforcedWithTheSentenceValidatePrints() throws {
        let error = #expect(throws: OptionsError.self) { try make(.transformer, "sort", ["by": "$.a", "order": "up"]) }
        #expect(error?.description == #"$.order: "order" is "up"; use "ascending" or "descending""#)
        let stage = try #require(try make(.transformer, "sort", ["by": "$.a"]) as? SortTransform)
        #expect(!stage.descending)
    }

    @Test func boundsAreEnforcedInsideTheSharedRequestOptions() throws {
        for (kind, typeName, url) in [
            (StageKind.fetcher, "http", "https://example.com/"), (.transformer, "fetch", "https://example.com/{{ item }}"),
        ] {
            let error = #expect(throws: OptionsError.self) { try make(kind, typeName, ["url": .string(url), "maxBytes": 0]) }
            #expect(error?.description == #"$.maxBytes: "maxBytes" must be above 0"#, "\(typeName)")
        }
        let fetch = try #require(try make(.transformer, "fetch", ["url": "https://example.com/{{ item }}"]) as? FetchTransform)
        #expect(fetch.fetcher.maxBytes == HTTPRequest.defaultMaxBytes)
        #expect(fetch.fetcher.timeout == HTTPRequest.defaultTimeout)
        #expect(fetch.concurrency == FetchTransform.defaultConcurrency)
        #expect(fetch.onError == .fail)
    }

    /// Every key with a declared default decodes as that default when left out: a stage made with only its
    /// required keys is the stage made with every default written out, and each default is within its bounds.
    @Test func everyBuiltInStagesDeclaredDefaultsDecode() throws {
        var checked = 0
        for entry in StageRegistry.builtIn.allEntries {
            guard let shape = entry.options else { continue }
            var required = WidgetObject()
            for key in shape.keys where key.description.isRequired { required[key.name] = key.description.shape.example }
            // Where the examples of the shapes would not make a stage, what a definition would write.
            let written: [String: WidgetObject] = [
                "fetch": ["url": "https://example.com/{{ item }}"], "http": ["url": "https://example.com/"],
                "choose": ["cases": [["fields": ["label": "x"]]]], "each": ["every": "1h"], "filter": ["where": "@.price > 10"],
            ]
            for (name, value) in written[entry.typeName] ?? [:] { required[name] = value }
            var full = required
            for (name, value) in zip(shape.defaults.keys, shape.defaults.values) { full[name] = value }
            for key in shape.keys {
                guard let value = key.description.defaultValue else { continue }
                #expect(key.description.violation(of: value, key: key.name) == nil, "\(entry.typeName).\(key.name)")
            }
            let bare = try make(entry.kind, entry.typeName, required)
            let withDefaults = try make(entry.kind, entry.typeName, full)
            #expect(String(reflecting: bare) == String(reflecting: withDefaults), "\(entry.kind) \(entry.typeName)")
            checked += 1
        }
        #expect(checked >= 15)
    }

    @Test func errorsNameTheirOptionByKey() {
        let error = StageError("\"count\" is wrong", option: LimitTransform.Options.CodingKeys.count)
        #expect(error.option == "count")
    }

    @Test func secretOptionsAreTheKeysWhoseDescriptionAllowsSecrets() {
        #expect(FetchTransform.secretOptions.map(\.stringValue) == ["url", "headers", "body", "oauth2"])
        #expect(
            StageRegistry.builtIn.entry(.transformer, named: "fetch")?.secretOptions.map(\.stringValue) == [
                "url", "headers", "body", "oauth2",
            ])
        #expect(MapTransform.secretOptions.isEmpty)
    }
}
