import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct ChooseTransformTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!,
        params: ["currency": "usd"]
    )

    private func choose(_ options: WidgetValue) throws -> ChooseTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "choose", options: options, decoder: OptionsDecoder())
        return try #require(stage as? ChooseTransform)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "choose", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    /// Bitpal's rule: `pnlPercentage = costBasis > 0 ? (currentValue / costBasis - 1) * 100 : 0`.
    static let profit: WidgetValue = [
        "cases": [
            [
                "where": "@.costBasis > 0",
                "fields": ["pnlPercentage": "{{ currentValue | divided_by: costBasis | minus: 1 | times: 100 | round: 2 }}"],
            ],
            ["fields": ["pnlPercentage": 0]],
        ]
    ]

    // MARK: - Cases

    @Test func theFirstCaseAnItemPassesAddsItsFieldsAndTheOthersAreNotRendered() async throws {
        let holdings: WidgetValue = [
            ["coin": "btc", "currentValue": 48625.25, "costBasis": 31250],
            ["coin": "airdrop", "currentValue": 310.5, "costBasis": 0],
            ["coin": "eth", "currentValue": .number(WidgetNumber("13649.0")!), "costBasis": 16000],
        ]
        let result = try await choose(Self.profit).transform(holdings, context: context)
        #expect(
            result == [
                ["coin": "btc", "currentValue": 48625.25, "costBasis": 31250, "pnlPercentage": .number(WidgetNumber("55.6")!)],
                ["coin": "airdrop", "currentValue": 310.5, "costBasis": 0, "pnlPercentage": 0],
                [
                    "coin": "eth", "currentValue": .number(WidgetNumber("13649.0")!), "costBasis": 16000,
                    "pnlPercentage": .number(WidgetNumber("-14.69")!),
                ],
            ])
    }

    @Test func anItemNoCaseMatchesIsKeptUnchanged() async throws {
        let options: WidgetValue = ["cases": [["where": "@.error != 0", "fields": ["failed": true]]]]
        let torrents: WidgetValue = [["name": "a", "error": 0], ["name": "b", "error": 3]]
        let result = try await choose(options).transform(torrents, context: context)
        #expect(result == [["name": "a", "error": 0], ["name": "b", "error": 3, "failed": true]])
    }

    @Test func casesAreTriedInOrderLikeAnIfElseChain() async throws {
        // Transmission's status codes as BitDream names them.
        let options: WidgetValue = [
            "cases": [
                ["where": "@.status == 0 && @.percentDone == 1", "fields": ["state": "Complete"]],
                ["where": "@.status == 0", "fields": ["state": "Paused"]],
                ["where": "@.status == 4 && @.isStalled == true", "fields": ["state": "Stalled"]],
                ["where": "@.status == 4", "fields": ["state": "Downloading"]],
                ["fields": ["state": "Unknown"]],
            ]
        ]
        let torrents: WidgetValue = [
            ["status": 0, "percentDone": 1.0, "isStalled": false],
            ["status": 0, "percentDone": 0.42, "isStalled": false],
            ["status": 4, "percentDone": 0.25, "isStalled": true],
            ["status": 4, "percentDone": 0.6125, "isStalled": false],
            ["status": 6, "percentDone": 1.0, "isStalled": false],
        ]
        let result = try await choose(options).transform(torrents, context: context)
        #expect(result.array?.map { $0["state"] } == ["Complete", "Paused", "Stalled", "Downloading", "Unknown"])
    }

    @Test func anIfTemplateTestsLikeTheFilterTransform() async throws {
        let options: WidgetValue = [
            "cases": [
                ["if": "{{ image }}", "fields": ["thumbnail": "{{ image | prepend: 'https://cdn.example.com/' }}"]],
                ["fields": ["thumbnail": nil]],
            ]
        ]
        let items: WidgetValue = [["image": "a.jpg"], ["image": ""], ["image": nil], [:]]
        let result = try await choose(options).transform(items, context: context)
        #expect(result.array?.map { $0["thumbnail"] } == ["https://cdn.example.com/a.jpg", .null, .null, .null])
    }

    @Test func fieldsSeeTheItemInputsAndParamsAndKeepTheirTypes() async throws {
        let options: WidgetValue = [
            "cases": [["fields": ["currency": "{{ params.currency | upcase }}", "pair": "{{ item }}", "literal": [1, 2]]]]
        ]
        let result = try await choose(options).transform(["price": 3], context: context)
        #expect(result == ["price": 3, "currency": "USD", "pair": ["price": 3], "literal": [1, 2]])
    }

    // MARK: - Items

    @Test func aValueThatIsNotAListIsTheOneItem() async throws {
        let portfolio: WidgetValue = ["totalValue": 0, "totalCost": 0]
        let options: WidgetValue = [
            "cases": [
                ["where": "@.totalCost > 0", "fields": ["totalPnLPercentage": "{{ totalValue | divided_by: totalCost }}"]],
                ["fields": ["totalPnLPercentage": 0]],
            ]
        ]
        let result = try await choose(options).transform(portfolio, context: context)
        #expect(result == ["totalValue": 0, "totalCost": 0, "totalPnLPercentage": 0])
    }

    @Test func eachPicksTheItemsInsideTheValueAndKeepsTheRest() async throws {
        let server: WidgetValue = [
            "session": ["downloadSpeed": 5_242_880],
            "torrents": [["name": "debian.iso", "error": 0], ["name": "arch.iso", "error": 2, "errorString": "Tracker gave HTTP 404"]],
        ]
        let options: WidgetValue = [
            "each": "$.torrents[*]",
            "cases": [
                ["where": "@.error != 0", "fields": ["problem": "{{ errorString }}"]],
                ["fields": ["problem": nil]],
            ],
        ]
        let result = try await choose(options).transform(server, context: context)
        #expect(
            result == [
                "session": ["downloadSpeed": 5_242_880],
                "torrents": [
                    ["name": "debian.iso", "error": 0, "problem": nil],
                    ["name": "arch.iso", "error": 2, "errorString": "Tracker gave HTTP 404", "problem": "Tracker gave HTTP 404"],
                ],
            ])
    }

    @Test func eachWithNothingToPickLeavesTheValueAsItWas() async throws {
        let options: WidgetValue = ["each": "$.torrents[*]", "cases": [["fields": ["seen": true]]]]
        let value: WidgetValue = ["session": [:], "torrents": []]
        #expect(try await choose(options).transform(value, context: context) == value)
        #expect(try await choose(options).transform(nil, context: context) == nil)
    }

    // MARK: - Errors

    @Test func aFieldThatFailsNamesItsCaseAndItem() async throws {
        let options: WidgetValue = ["cases": [["fields": ["ratio": "{{ up | divided_by: down }}"]]]]
        let error = await #expect(throws: StageError.self) {
            _ = try await choose(options).transform([["up": 1, "down": 2], ["up": 1, "down": 0]], context: context)
        }
        #expect(error?.message == #"the "ratio" field of case 0 failed on item 1: divided_by: cannot divide by zero at column 9"#)
    }

    @Test func anItemThatIsNotAnObjectIsAnErrorOnceACaseIsChosen() async throws {
        let options: WidgetValue = ["cases": [["where": "@ > 1", "fields": ["big": true]]]]
        #expect(try await choose(options).transform([1], context: context) == [1])
        let error = await #expect(throws: StageError.self) {
            _ = try await choose(options).transform([1, 2], context: context)
        }
        #expect(error?.message == "choose adds fields to objects, but item 1 is number")
        let nested = await #expect(throws: StageError.self) {
            _ = try await choose(["each": "$.a[*]", "cases": [["fields": ["x": 1]]]]).transform(["a": ["text"]], context: context)
        }
        #expect(nested?.message == "choose adds fields to objects, but $['a'][0] is string")
    }

    @Test func badCasesAreOptionsErrors() throws {
        #expect(
            optionsError(["cases": []])?.description
                == #"$.cases: "cases" is empty; give at least one, e.g. [{"where": "@.price > 0", "fields": {"onSale": true}}]"#)
        #expect(
            optionsError(["cases": [["where": "@.a", "if": "{{ a }}", "fields": [:]]]])?.description
                == #"$.cases: case 0: give either "where" (a JSONPath filter such as "@.price > 10") or "if" (a template), not both"#)
        #expect(
            optionsError(["cases": [["where": "@.a", "fields": "{{ a }}"]]])?.description
                == #"$.cases: case 0: "fields" must be an object of field names and templates, e.g. {"label": "{{ name }}"}"#)
        #expect(
            optionsError(["cases": [["fields": ["a": 1]], ["where": "@.b", "fields": ["a": 2]]]])?.description
                == #"$.cases: case 0 has no "where" or "if", so every item takes it and the cases after it can never be chosen; move it last"#
        )
        #expect(
            optionsError(["cases": [["where": "@.a", "fields": [:], "feilds": [:]]]])?.description
                == "$.cases[0].feilds: unknown key 'feilds'; did you mean 'fields'?")
        let badFilter = try #require(optionsError(["cases": [["where": "@.price >", "fields": [:]]]]))
        #expect(badFilter.path.description == "$.cases[0].where")
        #expect(badFilter.expressionColumn != nil)
    }
}
