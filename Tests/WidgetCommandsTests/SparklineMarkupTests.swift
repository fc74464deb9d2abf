import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetRuntime

/// Sparklines in a view: the filter's SVG passes the gallery's markup rules unchanged, hostile SVG loses
/// what could act or fetch, and a view sees its history drawn.
struct SparklineMarkupTests {
    /// `source` rendered as a view renders it (escaping) with `globals`, then sanitized.
    private func view(_ source: String, _ globals: WidgetObject) throws -> String {
        var scope = TemplateScope(globals: globals)
        scope.escapesHTML = true
        return ViewMarkup.sanitize(try Template(source).renderString(scope))
    }

    private static let history: WidgetValue = [
        ["at": "2026-11-29T06:00:00Z", "value": 61_250.5], ["at": "2026-11-29T06:15:00Z", "value": 63_010],
        ["at": "2026-11-29T06:30:00Z", "value": 59_875.25], ["at": "2026-11-29T06:45:00Z", "value": 67_574.825],
    ]

    @Test func theFiltersDrawingPassesTheMarkupRulesUnchanged() throws {
        for source in [
            "{{ h | sparkline }}", "{{ h | sparkline: width: 400, height: 60, label: 'Value <b>&</b>' }}", "{{ one | sparkline }}",
            "{{ none | sparkline }}",
        ] {
            var scope = TemplateScope(globals: ["h": Self.history, "one": [1], "none": []])
            scope.escapesHTML = true
            let html = try Template(source).renderString(scope)
            #expect(html.hasPrefix("<svg class=\"sparkline\""), "\(html)")
            #expect(ViewMarkup.sanitize(html) == html, "\(source)")
        }
    }

    @Test func hostileSVGLosesWhatCouldRunOrFetch() {
        let cases: [(String, String)] = [
            (#"<svg onload="alert(1)" viewBox="0 0 10 10"><circle r="1"/></svg>"#, #"<svg viewBox="0 0 10 10"><circle r="1" /></svg>"#),
            (#"<svg><script>alert(1)</script></svg>"#, "<svg>&lt;script>alert(1)&lt;/script></svg>"),
            (#"<svg><a xlink:href="javascript:alert(1)"><circle r="5"/></a></svg>"#, #"<svg><circle r="5" /></svg>"#),
            (#"<svg><foreignObject><p onclick="x()">hi</p></foreignObject></svg>"#, "<svg>hi</svg>"),
            (
                #"<svg><path d="M0 0" style="fill:url(https://evil/x)" fill="url(https://evil/#p)"/></svg>"#,
                #"<svg><path d="M0 0" /></svg>"#
            ),
            (#"<svg><circle fill="u\72l(https://evil)" stroke="&#x75;rl(x)" r="1"/></svg>"#, #"<svg><circle r="1" /></svg>"#),
            (
                ##"<svg><use href="#a"/><image href="https://evil/x.png"/><animate attributeName="href" to="javascript:x"/></svg>"##,
                "<svg></svg>"
            ),
            (#"<svg><set attributeName="onmouseover" to="alert(1)"/><style>*{}</style></svg>"#, "<svg>&lt;style>*{}&lt;/style></svg>"),
            // An HTML tag inside the drawing would end it in the browser: it is dropped, its text kept.
            (#"<svg><p>text</p><img src=x onerror=alert(1)><title>ok</title></svg>"#, "<svg>text<title>ok</title></svg>"),
            // A title is text only; one never closed, or outside a drawing, is written as text.
            (#"<svg><title><b>bold</b><svg onload=x()></title></svg>"#, "<svg><title>&lt;b>bold&lt;/b>&lt;svg onload=x()></title></svg>"),
            (#"<svg><title>open"#, "<svg>&lt;title>open</svg>"),
            (#"<title>page</title>"#, "&lt;title>page&lt;/title>"),
            // A drawing left open is closed; a stray end tag is dropped.
            (
                #"<p>a</svg><svg><g class="x"><line x1="0" y1="1" x2="2" y2="3"/></g>"#,
                #"<p>a<svg><g class="x"><line x1="0" y1="1" x2="2" y2="3" /></g></svg>"#
            ),
            (#"<svg/><p>after</p>"#, "<svg /><p>after</p>"),
        ]
        for (hostile, expected) in cases {
            #expect(ViewMarkup.sanitize(hostile) == expected, "\(hostile)")
        }
    }

    @Test func aViewDrawsItsHistoryWithoutEscapingIt() throws {
        let html = try view(
            #"<p class="big">{{ entry.content.total }}</p>{{ history.total | sparkline: width: 400, height: 60 }}"#,
            ["history": ["total": Self.history], "entry": ["content": ["total": "<i>1</i>"]]])
        #expect(html.hasPrefix(#"<p class="big">&lt;i&gt;1&lt;/i&gt;</p><svg class="sparkline" viewBox="0 0 400 60""#), "\(html)")
        #expect(html.contains("<title>min 59875.25, max 67574.825, first 61250.5, last 67574.825 (4 points)</title>"), "\(html)")
        #expect(
            html.contains(#"<circle class="spark-last spark-max" "#) || html.contains(#"<circle class="spark-max spark-last" "#), "\(html)")
    }

    @Test func thePageStylesTheMarksForBothThemesWithoutFixedColours() {
        let style = GalleryPage.style
        for rule in [".sparkline{", ".spark-first{fill:var(--muted)}", ".spark-min{fill:var(--neg)}", ".spark-max{fill:var(--pos)}"] {
            #expect(style.contains(rule), "\(rule)")
        }
        // The colours are the theme's variables, which the dark theme redefines.
        #expect(style.contains("@media (prefers-color-scheme:dark){:root{"))
    }
}
