import Foundation
import Testing
import WidgetCore
import WidgetJSON

@testable import WidgetStages

struct XMLValueParserTests {
    func parse(_ xml: String, forceList: [String]? = nil) throws -> WidgetValue {
        try XMLValueParser(options: .init(forceList: forceList ?? [])).parse(
            Payload(data: Data(xml.utf8), contentType: "application/xml", origin: "api.example"),
            context: StageContext(widgetID: "x", now: Date()))
    }

    @Test func elementsBecomeObjectsAndRepeatedElementsLists() throws {
        let value = try parse(
            """
            <?xml version="1.0"?>
            <rates base="EUR" date="2026-11-20">
              <rate currency="USD">1.08</rate>
              <rate currency="GBP">0.85</rate>
              <source>ECB</source>
              <empty/>
            </rates>
            """)
        let expected = try JSONReader.read(
            """
            {"rates": {"@base": "EUR", "@date": "2026-11-20",
              "rate": [{"@currency": "USD", "#text": "1.08"}, {"@currency": "GBP", "#text": "0.85"}],
              "source": "ECB", "empty": ""}}
            """)
        #expect(value == expected)
    }

    @Test func textCDATAAndEntitiesAreRead() throws {
        let value = try parse("<a><b><![CDATA[x < y]]></b><c>Caf&eacute; &amp; bar</c><d>mixed <e>child</e> text</d></a>")
        #expect(value["a"]?["b"] == "x < y")
        #expect(value["a"]?["c"] == "Café & bar")
        #expect(value["a"]?["d"] == ["e": "child", "#text": "mixed  text"])
    }

    @Test func forceListKeepsSingleElementsInLists() throws {
        let value = try parse("<items><item><id>1</id></item></items>", forceList: ["item"])
        #expect(value == ["items": ["item": [["id": "1"]]]])
    }

    @Test func prefixesStayAndNamespaceDeclarationsGo() throws {
        let value = try parse("<r xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:creator>Ann</dc:creator></r>")
        #expect(value == ["r": ["dc:creator": "Ann"]])
    }

    @Test func malformedXMLIsAnErrorWithItsPlace() throws {
        do {
            _ = try parse("<a><b></a>")
            Issue.record("malformed XML was accepted")
        } catch let error as StageError {
            #expect(error.message.contains("api.example"))
            #expect(error.message.contains("line"))
        }
    }
}
