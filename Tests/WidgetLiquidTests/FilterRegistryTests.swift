import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

struct FilterRegistryTests {
    @Test func customFiltersAreUsableAndCheckedLikeStandardOnes() throws {
        let filters = FilterRegistry.standard.adding("surround", arguments: 1...2) { input, arguments, _ in
            let left = arguments[0].string ?? ""
            let right = arguments.count > 1 ? arguments[1].string ?? "" : left
            return .string(left + (input.string ?? "") + right)
        }
        let template = try Template("{{ name | surround: '*' | upcase }}", filters: filters)
        #expect(try template.renderString(TemplateScope(globals: ["name": "ada"])) == "*ADA*")
        #expect(throws: ExpressionError.self) { try Template("{{ name | surround }}", filters: filters) }
        #expect(throws: ExpressionError.self) { try Template("{{ name | surround: '*' }}") }
        #expect(filters.names.contains("surround"))
        #expect(!FilterRegistry.standard.names.contains("surround"))
    }

    @Test func customFiltersSeeKeywordArgumentsAndReportErrorsAtTheirColumn() throws {
        let filters = FilterRegistry.standard.adding("checked", arguments: 0...0) { input, _, context throws(ExpressionError) in
            if context.keywordArguments["strict"] == true, input.isNull {
                throw context.error("needs a value", hint: "give it one")
            }
            return input
        }
        let template = try Template("{{ x | checked: strict: true }}", filters: filters)
        #expect(throws: ExpressionError("checked: needs a value", column: 8, hint: "give it one")) {
            try template.render(TemplateScope())
        }
        #expect(try template.render(TemplateScope(globals: ["x": 1])) == 1)
    }

    @Test func standardSetHasShopifysAndTheFormattingFilters() {
        let names = Set(FilterRegistry.standard.names)
        for name in [
            "abs", "append", "date", "default", "divided_by", "where", "reject", "find", "find_index",
            "has", "sum", "base64_url_safe_decode", "sort_natural", "url_encode", "truncatewords",
            "number", "currency", "percent", "compact_number", "bytes", "relative_time", "format_date",
        ] {
            #expect(names.contains(name), "\(name)")
        }
    }
}
