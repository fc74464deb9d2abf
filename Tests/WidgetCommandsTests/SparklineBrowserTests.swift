import Foundation
import Testing
import WidgetTestSupport

/// A sparkline in a real browser: headless Chromium loads a gallery `run --once` wrote, in the light and
/// in the dark theme, and reports where the drawing is and the colours its line and marks were given.
@Suite(.enabled(if: HeadlessChromium.oracle.shouldRun, "needs chromium"), .timeLimit(.minutes(10)))
struct SparklineBrowserTests {
    /// The id of the element the measuring script writes its JSON into.
    static let outputID = "sparkline-measures"

    /// What the page showed of its first sparkline.
    struct Measures: Decodable {
        var width: Double
        var height: Double
        var points: Int
        var line: String
        var background: String
        var marks: [String: String]
        var title: String
    }

    /// A copy of the page `page` without its Content-Security-Policy, with a script that measures its
    /// first sparkline once the page's own script ran.
    static func measuring(_ page: String) -> String {
        var html = page
        if let start = html.range(of: "<meta http-equiv=\"Content-Security-Policy\""),
            let end = html.range(of: ">", range: start.upperBound..<html.endIndex)
        {
            html.removeSubrange(start.lowerBound..<end.upperBound)
        }
        let script = """
            <script>
            window.addEventListener('load', () => setTimeout(() => {
              const svg = document.querySelector('.card svg.sparkline');
              const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
              const marks = {};
              for (const name of ['spark-first', 'spark-last', 'spark-min', 'spark-max']) {
                const mark = svg && svg.querySelector('.' + name);
                marks[name] = mark ? getComputedStyle(mark).fill : 'none';
              }
              const line = svg && svg.querySelector('.spark-line');
              const result = {
                width: box.width, height: box.height, points: line ? line.points.numberOfItems : 0,
                line: line ? getComputedStyle(line).stroke : 'none',
                background: getComputedStyle(document.querySelector('.card')).backgroundColor,
                marks: marks, title: svg ? svg.querySelector('title').textContent : ''
              };
              const output = document.createElement('pre');
              output.id = '\(outputID)';
              output.textContent = JSON.stringify(result).replace(/[<>&]/g, (c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
              document.body.appendChild(output);
            }, 100));
            </script>
            """
        guard let body = html.range(of: "</body>", options: .backwards) else { return html + script }
        html.insert(contentsOf: script + "\n", at: body.lowerBound)
        return html
    }

    /// Loads `page` (a file) in the browser, light or dark, and reads the script's measures.
    static func measure(_ page: URL, dark: Bool) async throws -> Measures {
        let arguments = ["--virtual-time-budget=5000", "--window-size=800,900", "--dump-dom"] + (dark ? ["--force-dark-mode"] : [])
        let dom = try await HeadlessChromium.run(arguments + [page.absoluteString + "?family=medium"])
        guard let element = dom.range(of: "<pre id=\"\(outputID)\">"),
            let end = dom.range(of: "</pre>", range: element.upperBound..<dom.endIndex)
        else {
            throw ToolError(description: "the page wrote no measures; chromium printed: \(dom.prefix(500))")
        }
        return try JSONDecoder().decode(Measures.self, from: Data(dom[element.upperBound..<end.lowerBound].utf8))
    }

    @Test func aSparklineIsDrawnInTheThemesColoursLightAndDark() async throws {
        let config = try TemporaryFolder("sparkline-config")
        try config.write("widgets.d/data/prices.json", #"{"prices": [61250.5, 63010, 59875.25, 64100.125, 67574.825]}"#)
        try config.write(
            "widgets.d/prices.json",
            #"""
            {"title": "Prices", "source": {"path": "data/prices.json"},
             "view": "<p class=\"big\">Prices</p>{{ entry.content.prices | sparkline: width: 300, height: 60, label: 'Price' }}"}
            """#)
        let out = try TemporaryFolder("sparkline-out")
        let run = try await Widgetd.run(["run", "--config", "widgets.d", "--out", out.path, "--once"], in: config.url)
        #expect(run.status == 0, "\(run.stderr)")
        let page = try String(contentsOf: out.url.appendingPathComponent("index.html"), encoding: .utf8)
        let copy = try out.write("measure.html", Self.measuring(page))

        let light = try await Self.measure(copy, dark: false)
        let dark = try await Self.measure(copy, dark: true)
        for (theme, measures) in [("light", light), ("dark", dark)] {
            // Displayed at its size (it may shrink with a narrow card, keeping its proportions).
            #expect(measures.width > 100 && measures.width <= 300, "\(theme): \(measures)")
            #expect(abs(measures.height / measures.width - 60.0 / 300) < 0.01, "\(theme): \(measures)")
            #expect(measures.points == 5, "\(theme): \(measures)")
            #expect(measures.title == "Price: min 59875.25, max 67574.825, first 61250.5, last 67574.825 (5 points)")
            // Every mark is coloured, and none as the card's background.
            for (name, fill) in measures.marks {
                #expect(fill.hasPrefix("rgb(") && fill != measures.background, "\(theme) \(name): \(measures)")
            }
            #expect(measures.line.hasPrefix("rgb(") && measures.line != measures.background, "\(theme): \(measures)")
        }
        // The page's themes: the accent blue and the card white in light, lighter blue on dark grey in dark.
        #expect(light.line == "rgb(37, 99, 235)" && light.background == "rgb(255, 255, 255)", "\(light)")
        #expect(dark.line == "rgb(96, 165, 250)" && dark.background == "rgb(22, 27, 38)", "\(dark)")
        #expect(light.marks["spark-min"] == "rgb(185, 28, 28)" && dark.marks["spark-min"] == "rgb(248, 113, 113)")
        #expect(light.marks["spark-max"] != light.marks["spark-min"] && dark.marks["spark-max"] != dark.marks["spark-min"])
    }
}
