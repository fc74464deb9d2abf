import Testing
import WidgetLiquid

/// `HTMLText.escape`, which views' outputs and Liquid's `escape` go through.
struct HTMLEscapeTests {
    @Test func everySpecialCharacterIsEscapedAndTheRestKept() {
        #expect(HTMLText.escape(#"<a href="x">Tom & Jerry's</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
        #expect(HTMLText.escape("Café 🎨 plain") == "Café 🎨 plain")
        #expect(HTMLText.escape("") == "")
    }

    @Test func aCombiningMarkDoesNotHideAQuoteOrABracket() {
        // "\"\u{301}" is one Character; escaped character by character, its quote would end an attribute.
        #expect(HTMLText.escape("\"\u{301}onmouseover=x") == "&quot;\u{301}onmouseover=x")
        #expect(HTMLText.escape("<\u{301}b>") == "&lt;\u{301}b&gt;")
    }
}
