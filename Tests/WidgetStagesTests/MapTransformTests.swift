import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct MapTransformTests {
    /// 2026-11-22T09:36:43Z.
    let now = Date(timeIntervalSince1970: 1_795_340_203)

    var context: StageContext {
        StageContext(
            widgetID: "test",
            widgetTitle: "Test widget",
            now: now,
            timeZone: TimeZone(identifier: "America/New_York")!,
            inputs: ["daily": ["joke_id": "j-42"]],
            params: ["host": "nas.local"],
            secrets: SecretStore(environment: ["TOKEN": "s3cr3t-value"])
        )
    }

    private func map(_ options: WidgetValue) throws -> MapTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "map", options: options, decoder: OptionsDecoder())
        return try #require(stage as? MapTransform)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "map", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Shape

    /// A refresh stopped at its deadline stops mapping at the next item, with nothing left running.
    @Test func aCancelledRefreshStopsBeforeTheNextItem() async throws {
        let transform = try map(["fields": ["n": "{{ item }}"]])
        let context = self.context
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transform.transform([1, 2, 3], context: context)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func buildsTheFieldsOfEachItem() async throws {
        let items: WidgetValue = [["title": "  One ", "n": 1], ["title": "Two", "n": 2]]
        let result = try await map(["fields": ["title": "{{ title | strip }}", "label": "#{{ n }}"]]).transform(items, context: context)
        #expect(result == [["title": "One", "label": "#1"], ["title": "Two", "label": "#2"]])
    }

    @Test func aValueThatIsNotAListIsMappedOnce() async throws {
        let result = try await map(["fields": ["name": "{{ title | upcase }}"]]).transform(["title": "solo"], context: context)
        #expect(result == ["name": "SOLO"])
    }

    @Test func mergeAddsTheFieldsToTheItem() async throws {
        let items: WidgetValue = [["title": "One", "price": 3], ["title": "Two", "price": 4]]
        let result = try await map(["merge": true, "fields": ["label": "{{ title }}!", "price": "{{ price | times: 2 }}"]])
            .transform(items, context: context)
        #expect(result == [["title": "One", "price": 6, "label": "One!"], ["title": "Two", "price": 8, "label": "Two!"]])
        #expect(result[0]?.object?.keys.map { $0 } == ["title", "price", "label"])
        let replaced = try await map(["merge": false, "fields": ["label": "{{ title }}"]]).transform(items, context: context)
        #expect(replaced == [["label": "One"], ["label": "Two"]])
    }

    @Test func mergeOnAnItemThatIsNotAnObjectGivesTheFields() async throws {
        let result = try await map(["merge": true, "fields": ["value": "{{ item }}"]]).transform(["a", 1], context: context)
        #expect(result == [["value": "a"], ["value": 1]])
    }

    // MARK: - Scope

    @Test func templatesSeeTheItemInputsParamsWidgetAndNow() async throws {
        let fields: WidgetValue = [
            "title": "{{ title }}",
            "joke": "{{ inputs.daily.joke_id }}",
            "host": "{{ params.host }}",
            "id": "{{ widget.id }}",
            "widgetTitle": "{{ widget.title }}",
            "zone": "{{ widget.timeZone }}",
            "now": "{{ now }}",
            "day": "{{ 'now' | date: '%Y-%m-%d %H:%M' }}",
            "whole": "{{ item.title }}",
        ]
        let result = try await map(["fields": fields]).transform(["title": "Hello"], context: context)
        #expect(
            result == [
                "title": "Hello",
                "joke": "j-42",
                "host": "nas.local",
                "id": "test",
                "widgetTitle": "Test widget",
                "zone": "America/New_York",
                "now": "2026-11-22T09:36:43Z",
                "day": "2026-11-22 04:36",
                "whole": "Hello",
            ])
    }

    @Test func secretsAreNotVisibleOutsideASource() async throws {
        do {
            _ = try await map(["fields": ["token": "{{ env.TOKEN }}"]]).transform([:], context: context)
            Issue.record("env must not be in scope outside a source")
        } catch {
            #expect("\(error)".contains("there is no variable 'env'"))
            #expect("\(error)".contains("secrets are read only in a source's url, headers and body"))
        }
        let guarded = try await map(["fields": ["text": "[{{ env.TOKEN | default: '' }}]"]]).transform([:], context: context)
        #expect(guarded == ["text": "[]"])
    }

    @Test func aSingleExpressionKeepsTheValuesType() async throws {
        let item = try JSONReader.read(#"{"price": 12.50, "tags": ["a", "b"], "offer": {"on": true}, "none": null}"#)
        let fields: WidgetValue = [
            "price": "{{ price }}",
            "tags": "{{ tags }}",
            "offer": "{{ offer }}",
            "on": "{{ offer.on }}",
            "none": "{{ none }}",
            "text": "{{ price }} USD",
            "spaced": " {{ price }}",
            "constant": 7,
            "flag": false,
            "nested": ["list": ["{{ price }}", "x"]],
        ]
        let result = try await map(["fields": fields]).transform(item, context: context)
        #expect(result["price"]?.number?.text == "12.50")
        #expect(result["tags"] == ["a", "b"])
        #expect(result["offer"] == ["on": true])
        #expect(result["on"] == true)
        #expect(result["none"] == .null)
        #expect(result["text"] == "12.50 USD")
        #expect(result["spaced"] == " 12.50")
        #expect(result["constant"] == 7)
        #expect(result["flag"] == false)
        #expect(result["nested"]?["list"]?[0]?.number?.text == "12.50")
        #expect(result["nested"]?["list"]?[1] == "x")
    }

    // MARK: - Decimal arithmetic

    @Test func moneyIsMultipliedExactly() async throws {
        let item = try JSONReader.read(#"{"quantity": 0.12345678, "price": 43210.12345678}"#)
        let result = try await map(["fields": ["value": "{{ quantity | times: price }}", "text": "{{ quantity | times: price }} EUR"]])
            .transform(item, context: context)
        #expect(result["value"]?.number?.text == "5334.5827053765279684")
        #expect(result["text"] == "5334.5827053765279684 EUR")
    }

    @Test func decimalAdditionHasNoBinaryDrift() async throws {
        let result = try await map(["fields": ["sum": "{{ 0.1 | plus: 0.2 }}", "difference": "{{ 1.1 | minus: 0.2 }}"]])
            .transform([:], context: context)
        #expect(result["sum"]?.number?.text == "0.3")
        #expect(result["difference"]?.number?.text == "0.9")
    }

    // MARK: - Missing data and failures

    @Test func missingDataRendersAsNilOrEmptyWhenGuarded() async throws {
        let fields: WidgetValue = [
            "value": "{{ missing | default: nil }}",
            "deep": "{{ missing.deeper[3].name | default: nil }}",
            "text": "a{{ missing.deeper | default: '' }}b",
            "tested": "{% if missing.deeper %}yes{% else %}no{% endif %}",
            "fallback": "{{ missing | default: 'none' }}",
        ]
        let result = try await map(["fields": fields]).transform([["other": 1], "string item", nil], context: context)
        let expected: WidgetValue = ["value": nil, "deep": nil, "text": "ab", "tested": "no", "fallback": "none"]
        #expect(result == [expected, expected, expected])
    }

    @Test func missingDataIsAnErrorNamingTheItemTheColumnAndTheNearestName() async throws {
        let cases: [(template: String, message: String)] = [
            ("{{ nme }}", "there is no variable 'nme' at column 4; did you mean 'name'?"),
            ("x {{ item.titel | upcase }}", "'item' has no member 'titel' at column 6; did you mean 'title'?"),
            ("{{ author.name }}", "'author' is nil, so it has no member 'name' at column 4"),
            ("{{ tags[5] }}", "'tags' has no element [5] (it has 2) at column 4"),
            ("{% for t in tagz %}{{ t }}{% endfor %}", "there is no variable 'tagz' at column 13; did you mean 'tags'?"),
        ]
        let item: WidgetValue = ["name": "a", "title": "b", "author": nil, "tags": ["x", "y"]]
        for (template, message) in cases {
            do {
                _ = try await map(["fields": ["value": .string(template)]]).transform([item], context: context)
                Issue.record("\(template) should fail")
            } catch {
                #expect("\(error)".contains("the \"value\" field failed on item 0: \(message)"), "\(error)")
                #expect((error as? StageError)?.template?.path == ValuePath.root.appending("fields").appending("value"))
            }
        }
    }

    @Test func aFailingFilterNamesTheItemIndex() async throws {
        let items: WidgetValue = [["n": 1, "d": 1], ["n": 2, "d": 4], ["n": 3, "d": 0]]
        let error = await #expect(throws: StageError.self) {
            _ = try await map(["fields": ["n": "{{ n }}", "ratio": "{{ n | divided_by: d }}"]]).transform(items, context: context)
        }
        #expect(error?.message == #"the "ratio" field failed on item 2: divided_by: cannot divide by zero at column 8"#)
        let single = await #expect(throws: StageError.self) {
            _ = try await map(["fields": ["ratio": "{{ n | divided_by: d }}"]]).transform(["n": 1, "d": 0], context: context)
        }
        #expect(single?.message == #"the "ratio" field failed on the value: divided_by: cannot divide by zero at column 8"#)
    }

    // MARK: - Options

    @Test func fieldsMustBeAnObject() throws {
        let error = try #require(optionsError(["fields": "{{ title }}"]))
        #expect(error.description == #"$.fields: "fields" must be an object of field names and templates, e.g. {"title": "{{ title }}"}"#)
    }

    @Test func anUnknownFilterIsRejectedAtItsField() throws {
        let error = try #require(optionsError(["fields": ["title": "{{ title | upcse }}"]]))
        #expect(error.path.description == "$.fields.title")
        #expect(error.message.contains("did you mean 'upcase'?"))
    }
}
