import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

/// The `sparkline` filter: the SVG it draws from numbers and from points, its marks and title, its
/// sizes, and its output in a scope that escapes HTML.
struct SparklineFilterTests {
    private func render(_ source: String, _ globals: WidgetObject = [:], escaping: Bool = false) throws -> String {
        var scope = TemplateScope(globals: globals)
        scope.escapesHTML = escaping
        return try Template(source).renderString(scope)
    }

    private func failure(_ source: String, _ globals: WidgetObject = [:]) -> String? {
        do {
            _ = try render(source, globals)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The values of `attribute` in the order they appear in `svg`.
    private func attributes(_ attribute: String, in svg: String) -> [String] {
        svg.matches(of: try! Regex("\(attribute)=\"([^\"]*)\"")).map { String($0.output[1].substring ?? "") }
    }

    private static func points(_ values: [String]) -> WidgetValue {
        .array(values.map { .object(["at": "2026-11-29T07:00:00Z", "value": .number(WidgetNumber($0)!)]) })
    }

    @Test func threeNumbersDrawALineWithTheirMarksAndASummary() throws {
        let svg = try render("{{ values | sparkline }}", ["values": [1, 3, 2]])
        #expect(
            svg
                == #"<svg class="sparkline" viewBox="0 0 120 32" width="120" height="32" role="img">"#
                + "<title>min 1, max 3, first 1, last 2 (3 points)</title>"
                + #"<polyline class="spark-line" points="3.5,28.5 60,3.5 116.5,16" fill="none" stroke="currentColor""#
                + #" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round" />"#
                + #"<circle class="spark-min spark-first" cx="3.5" cy="28.5" r="2.5" fill="currentColor" />"#
                + #"<circle class="spark-max" cx="60" cy="3.5" r="2.5" fill="currentColor" />"#
                + #"<circle class="spark-last" cx="116.5" cy="16" r="2.5" fill="currentColor" />"#
                + "</svg>")
    }

    @Test func pointsAreReadByTheirValueAndOtherItemsAreSkipped() throws {
        let history: WidgetValue = [
            ["at": "2026-11-29T06:00:00Z", "value": 10], "not a number", nil, true, ["at": "2026-11-29T06:15:00Z"],
            ["value": "30"], 20,
        ]
        let svg = try render("{{ h | sparkline }}", ["h": history])
        #expect(svg.contains("<title>min 10, max 30, first 10, last 20 (3 points)</title>"), "\(svg)")
        #expect(attributes("points", in: svg) == ["3.5,28.5 60,3.5 116.5,16"])
    }

    @Test func heightsComeFromTheExactDecimals() throws {
        // As doubles the three values are one and the same; as decimals they are evenly apart.
        let history = Self.points(["12345678901234567890.1", "12345678901234567890.3", "12345678901234567890.2"])
        let svg = try render("{{ h | sparkline }}", ["h": history])
        #expect(attributes("points", in: svg) == ["3.5,28.5 60,3.5 116.5,16"])
        #expect(svg.contains("min 12345678901234567890.1, max 12345678901234567890.3"), "\(svg)")
    }

    @Test func emptyListsOnePointAndFlatSeriesDrawSomethingSensible() throws {
        let empty = try render("{{ h | sparkline }}", ["h": []])
        #expect(empty == #"<svg class="sparkline" viewBox="0 0 120 32" width="120" height="32" role="img"><title>No data</title></svg>"#)
        #expect(try render("{{ missing | sparkline }}") == empty)
        #expect(try render("{{ h | sparkline }}", ["h": ["x", nil]]) == empty)

        let one = try render("{{ h | sparkline }}", ["h": Self.points(["42.5"])])
        #expect(!one.contains("<polyline"), "\(one)")
        #expect(attributes("class", in: one) == ["sparkline", "spark-min spark-max spark-first spark-last"])
        #expect(attributes("cx", in: one) == ["60"] && attributes("cy", in: one) == ["16"])
        #expect(one.contains("<title>min 42.5, max 42.5, first 42.5, last 42.5 (1 point)</title>"), "\(one)")

        let flat = try render("{{ h | sparkline }}", ["h": [7, 7, 7]])
        #expect(attributes("points", in: flat) == ["3.5,16 60,16 116.5,16"])
        #expect(attributes("class", in: flat) == ["sparkline", "spark-line", "spark-min spark-max spark-first", "spark-last"])
    }

    @Test func sizesAreKeywordsWithinBounds() throws {
        let svg = try render("{{ h | sparkline: width: 400, height: 60 }}", ["h": [1, 2]])
        #expect(svg.hasPrefix(#"<svg class="sparkline" viewBox="0 0 400 60" width="400" height="60""#), "\(svg)")
        #expect(attributes("points", in: svg) == ["3.5,56.5 396.5,3.5"])
        #expect(
            failure("{{ h | sparkline: width: 5 }}", ["h": [1]])
                == "sparkline: `width:` must be a whole number of pixels from 16 to 1000 at column 8; write e.g. `sparkline: width: 120`")
        #expect(failure("{{ h | sparkline: height: 'tall' }}", ["h": [1]])?.contains("from 8 to 400") == true)
        #expect(failure("{{ h | sparkline: colour: 'red' }}", ["h": [1]])?.contains("does not take the keyword `colour:`") == true)
    }

    @Test func itsMarkupIsShownAsItIsWhereOutputIsEscapedAndTheLabelIsEscaped() throws {
        let svg = try render(
            "<p>{{ h | sparkline: label: name }}</p>", ["h": [1, 2], "name": "<script>alert(1)</script> & co"], escaping: true)
        #expect(svg.hasPrefix("<p><svg class=\"sparkline\""), "\(svg)")
        #expect(svg.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co: min 1, max 2"), "\(svg)")
        #expect(!svg.contains("<script"), "\(svg)")
        // A filter after it escapes again.
        #expect(try render("{{ h | sparkline | upcase }}", ["h": [1]], escaping: true).hasPrefix("&lt;SVG"))
    }

    @Test func itHoldsNumbersAndClassNamesButNoColours() throws {
        let values: WidgetValue = .array((0..<50).map { .number(WidgetNumber("\($0 % 7).25")!) })
        let svg = try render("{{ h | sparkline: width: 200 }}", ["h": values])
        let text = svg.replacing(/<title>[^<]*<\/title>/, with: "")
        #expect(!text.contains("#") && !text.contains("rgb") && !text.contains("style") && !text.contains("url("), "\(svg)")
        let names = Set(text.matches(of: /<\/?([a-z]+)/).map { String($0.output.1) })
        #expect(names == ["svg", "polyline", "circle"])
    }

    @Test func aLongSeriesKeepsEachColumnsExtremesAndExactMarks() throws {
        // 10,000 points in 100 pixels: a spike at 4,321 and a dip at 8,765 must both show.
        var values = (0..<10_000).map { WidgetValue.number(WidgetNumber(100 + $0 % 10)) }
        values[4_321] = 500
        values[8_765] = 1
        let svg = try render("{{ h | sparkline: width: 100 }}", ["h": .array(values)])
        let points = try #require(attributes("points", in: svg).first).split(separator: " ")
        #expect(points.count <= 2 * 100 + 2, "\(points.count)")
        #expect(points.first == "3.5,23.54", "\(points.first ?? "")")
        #expect(points.last?.hasPrefix("96.5,") == true, "\(points.last ?? "")")
        #expect(points.contains { $0.hasSuffix(",3.5") } && points.contains { $0.hasSuffix(",28.5") })
        // The marks sit at the spike and the dip themselves: x = 3.5 + 93 × index ÷ 9,999.
        let max = try #require(svg.firstMatch(of: /<circle class="spark-max" cx="([0-9.]+)" cy="3.5"/))
        #expect(abs(Double(max.output.1)! - (3.5 + 93.0 * 4_321 / 9_999)) < 0.01)
        let min = try #require(svg.firstMatch(of: /<circle class="spark-min" cx="([0-9.]+)" cy="28.5"/))
        #expect(abs(Double(min.output.1)! - (3.5 + 93.0 * 8_765 / 9_999)) < 0.01)
        #expect(svg.contains("(10000 points)"))
    }

    @Test func numbersPastDoublesRangeStayInTheBox() throws {
        let history = Self.points(["1e999999999", "1e-999999999", "-1e999999999", "0"])
        let svg = try render("{{ h | sparkline }}", ["h": history])
        let points = try #require(attributes("points", in: svg).first).split(separator: " ")
        #expect(points.count == 4, "\(svg)")
        for point in points {
            let (x, y) = (Double(point.split(separator: ",")[0])!, Double(point.split(separator: ",")[1])!)
            #expect((3.5...116.5).contains(x) && (3.5...28.5).contains(y), "\(svg)")
        }
        #expect(points.first?.hasSuffix(",3.5") == true && points[2].hasSuffix(",28.5"), "\(svg)")
        #expect(svg.contains("<title>min -1e999999999, max 1e999999999, first 1e999999999, last 0 (4 points)</title>"), "\(svg)")
    }
}
