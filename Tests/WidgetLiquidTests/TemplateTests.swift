import Foundation
import Testing
import WidgetJSON
import WidgetLiquid
import WidgetTestSupport

struct TemplateTests {
    private func render(_ source: String, _ globals: WidgetObject = [:], item: WidgetValue? = nil) throws -> WidgetValue {
        try Template(source).render(TemplateScope(globals: globals, item: item))
    }

    private func text(_ source: String, _ globals: WidgetObject = [:]) throws -> String {
        try Template(source).renderString(TemplateScope(globals: globals))
    }

    // MARK: - Decimal arithmetic

    @Test func addingTenthsIsExact() throws {
        #expect(try render("{{ 0.1 | plus: 0.2 }}") == .number(WidgetNumber("0.3")!))
        #expect(try text("{{ 0.1 | plus: 0.2 }}") == "0.3")
        #expect(try text("{{ 1.1 | times: 3 }}") == "3.3")
    }

    @Test func moneyWithEightDecimalsStaysExact() throws {
        let globals: WidgetObject = [
            "balance": .number(WidgetNumber("12345678.12345678")!),
            "fee": .number(WidgetNumber("0.00000001")!),
        ]
        #expect(try text("{{ balance | minus: fee }}", globals) == "12345678.12345677")
        #expect(try text("{{ balance | plus: fee | times: 2 }}", globals) == "24691356.24691358")
        #expect(try text("{{ balance }}", globals) == "12345678.12345678")
    }

    @Test func integerDivisionRoundsDownAndFloatDivisionDoesNot() throws {
        #expect(try text("{{ 9 | divided_by: 2 }}") == "4")
        #expect(try text("{{ -9 | divided_by: 2 }}") == "-5")
        #expect(try text("{{ 9 | divided_by: 2.0 }}") == "4.5")
        #expect(try text("{{ 10 | divided_by: 2.0 }}") == "5.0")
        #expect(try text("{{ 1 | divided_by: 3.0 }}") == "0.3333333333333333")
        #expect(try text("{{ -7 | modulo: 3 }}") == "2")
    }

    @Test func divisionByZeroIsAnErrorAtTheFilter() throws {
        let template = try Template("n = {{ n | divided_by: 0 }}")
        #expect(throws: ExpressionError.self) { try template.render(TemplateScope(globals: ["n": 10])) }
        do {
            _ = try template.render(TemplateScope(globals: ["n": 10]))
        } catch {
            #expect(error.column == 12)
            #expect(error.description == "divided_by: cannot divide by zero at column 12")
        }
    }

    @Test func roundingCeilingAndFloorAreDecimal() throws {
        #expect(try text("{{ 2.675 | round: 2 }}") == "2.68")
        #expect(try text("{{ -5.4 | floor }}") == "-6")
        #expect(try text("{{ -5.4 | ceil }}") == "-5")
        #expect(try text("{{ 5.5 | round }}") == "6")
    }

    // MARK: - Types

    @Test func aSingleTagKeepsTheValuesType() throws {
        let globals: WidgetObject = ["n": 4, "tags": ["a", "b"], "user": ["name": "Ada"], "on": true]
        #expect(try render("{{ n | plus: 1 }}", globals) == 5)
        #expect(try render("{{ tags }}", globals) == ["a", "b"])
        #expect(try render("{{ user }}", globals) == ["name": "Ada"])
        #expect(try render("{{ on }}", globals) == true)
        #expect(try render("{{ missing }}", globals) == .null)
        #expect(try render("{{- n -}}", globals) == 4)
    }

    @Test func textAroundATagMakesAString() throws {
        let globals: WidgetObject = ["n": 4, "tags": ["a", "b"], "user": ["name": "Ada"]]
        #expect(try render(" {{ n }}", globals) == " 4")
        #expect(try render("{{ tags }}!", globals) == "ab!")
        #expect(try render("{{ user }}", globals).object != nil)
        #expect(try text("{{ user }}", globals) == #"{"name":"Ada"}"#)
    }

    @Test func missingDataRendersAsNothing() throws {
        #expect(try text("[{{ nothing.here[3].deeper | upcase }}]") == "[]")
        #expect(try text("[{{ list[99] }}]", ["list": [1]]) == "[]")
        #expect(try text("{{ nothing | plus: 1 }}") == "1")
        #expect(try text("{{ nothing | date: '%Y' }}") == "")
        #expect(try text("{{ nothing | map: 'x' | join: ',' }}") == "")
    }

    @Test func whitespaceControlTrimsAroundTheTag() throws {
        #expect(try text("a  \n {{- 'b' -}} \n  c") == "abc")
        #expect(try text("a {{ 'b' }} c") == "a b c")
    }

    // MARK: - Scope

    @Test func itemMembersAreRootVariablesButGlobalsWin() throws {
        let item: WidgetValue = ["title": "From item", "params": "shadowed"]
        let globals: WidgetObject = ["params": ["host": "nas"]]
        #expect(try render("{{ title }}", globals, item: item) == "From item")
        #expect(try render("{{ params.host }}", globals, item: item) == "nas")
        #expect(try render("{{ item.title }}", globals, item: item) == "From item")
    }

    @Test func pathsReadMembersIndexesAndProperties() throws {
        let globals: WidgetObject = ["a": ["b": [10, 20, 30], "x y": "spaced", "k": "b"], "i": 1]
        #expect(try render("{{ a.b[0] }}", globals) == 10)
        #expect(try render("{{ a.b[-1] }}", globals) == 30)
        #expect(try render("{{ a.b[i] }}", globals) == 20)
        #expect(try render(#"{{ a["x y"] }}"#, globals) == "spaced")
        #expect(try render("{{ a[a.k].size }}", globals) == 3)
        #expect(try render("{{ a.b.first }}-{{ a.b.last }}", globals) == "10-30")
        #expect(try text("{{ (1..4) | join: ',' }}") == "1,2,3,4")
    }

    @Test func variablesListsTheRootNames() throws {
        let template = try Template(
            "{{ inputs.daily.id }}/{{ env.TOKEN | default: now }}/{{ list[index] }}/{{ 'x' | append: item.y }}")
        #expect(template.variables == ["inputs", "env", "now", "list", "index", "item"])
        #expect(!template.isConstant)
        #expect(try Template("plain text").isConstant)
        #expect(try Template("plain text").variables.isEmpty)
    }

    // MARK: - Errors

    @Test func unknownFilterNamesTheColumnAndSuggestsAFix() {
        #expect(throws: ExpressionError("unknown filter 'upcse'", column: 12, hint: "did you mean 'upcase'?")) {
            try Template("{{ title | upcse }}")
        }
        do {
            _ = try Template("{{ title | upcse }}")
        } catch {
            #expect(error.description == "unknown filter 'upcse' at column 12; did you mean 'upcase'?")
        }
    }

    @Test func unterminatedTagIsAnError() {
        #expect(throws: ExpressionError("unterminated '{{'", column: 7, hint: "close the output tag with '}}'")) {
            try Template("Hello {{ name")
        }
    }

    @Test func wrongArgumentCountIsAnErrorWhenParsed() {
        do {
            _ = try Template("{{ 'a' | append }}")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "filter 'append' takes 1 argument, not 0 at column 10")
        }
        #expect(throws: ExpressionError.self) { try Template("{{ 'a' | upcase: 1 }}") }
    }

    @Test func badExpressionsAreErrorsWithAColumn() {
        for (source, column) in [("{{ @x }}", 4), ("{{ a..b }}", 5), ("{{ 'open }}", 4), ("{{ a b }}", 6)] {
            do {
                _ = try Template(source)
                Issue.record("expected an error for \(source)")
            } catch {
                #expect(error.column == column, "\(source): \(error)")
            }
        }
    }

    @Test func extremeInputsFailCleanlyInsteadOfCrashing() throws {
        #expect(throws: ExpressionError.self) { try text("{{ (1..100000000) | size }}") }
        #expect(throws: ExpressionError.self) {
            try text("{{ (a..b) | size }}", ["a": -9_223_372_036_854_775_808, "b": 9_223_372_036_854_775_807])
        }
        #expect(throws: ExpressionError.self) { try Template(String(repeating: "{{ [", count: 1) + String(repeating: "[", count: 500)) }
        #expect(try text("{{ 'abc' | truncate: -9223372036854775808 }}") == "...")
        #expect(try text("{{ 0 | date: '%99999999999Y' }}").count == 256)
        #expect(try text("{{ n | date: '%Y' }}", ["n": .number(WidgetNumber("1e300")!)]) == "1e300")
        #expect(try text("{{ 5 | divided_by: -9223372036854775808 }}") == "-1")
    }

    @Test func filterErrorsNeverQuoteTheValues() {
        do {
            _ = try Template("{{ env.TOKEN | base64_decode }}").render(TemplateScope(globals: ["env": ["TOKEN": "s3cr3t!"]]))
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("s3cr3t"))
            #expect(error.description == "base64_decode: the input is not valid base64 text at column 16")
        }
    }

    // MARK: - Decoding

    @Test func decodingReadsTheRegistryFromUserInfo() throws {
        let json = Data(#"["{{ name | shout }}"]"#.utf8)
        let decoder = JSONDecoder()
        #expect(throws: DecodingError.self) { try decoder.decode([Template].self, from: json) }
        decoder.userInfo[FilterRegistry.userInfoKey] = FilterRegistry.standard.adding("shout", arguments: 0...0) {
            input, _, _ in .string((input.string ?? "").uppercased())
        }
        let templates = try decoder.decode([Template].self, from: json)
        #expect(try templates[0].renderString(TemplateScope(globals: ["name": "ada"])) == "ADA")
    }

    @Test func decodingErrorCarriesTheExpressionError() {
        do {
            _ = try JSONDecoder().decode([Template].self, from: Data(#"["{{ x | upcse }}"]"#.utf8))
            Issue.record("expected an error")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(
                context.underlyingError as? ExpressionError
                    == ExpressionError("unknown filter 'upcse'", column: 8, hint: "did you mean 'upcase'?"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    // MARK: - Fuzz corpus

    @Test func seedCorpusTemplatesAreValid() throws {
        let folder = Oracles.packageRoot.appendingPathComponent("Tests/Fixtures/fuzz-corpus")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        var templates = 0
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            // Selector 3 is a template (see Sources/WidgetFuzzLiquid); JSONPathTests checks the others.
            guard bytes.first == 3 else { continue }
            _ = try Template(String(decoding: bytes.dropFirst(), as: UTF8.self))
            templates += 1
        }
        #expect(templates > 0)
    }
}
