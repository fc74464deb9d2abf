import Foundation
import Testing
import WidgetCore
import WidgetJSON

/// Instances that override the definition's title, time zone, schedule and placeholder, and titles and
/// placeholders that are templates rendered with each instance's params when the definition loads.
struct DefinitionInstanceTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func read(_ text: String) -> DefinitionReader.Result {
        reader.read(Data(text.utf8), file: "widgets.d/weather.json")
    }

    private func problems(_ text: String) -> [String] {
        read(text).diagnostics.map(\.description)
    }

    /// One definition, three cities: the first keeps every default, the others override.
    private static let cities = #"""
        {
          "title": "{{ params.city }} weather",
          "timeZone": "Europe/Berlin",
          "source": { "url": "https://api.example.com/{{ params.city | url_encode }}" },
          "schedule": { "every": "30m" },
          "placeholder": { "city": "{{ params.city }}", "temperature": null, "note": "Waiting for {{ params.city | upcase }}" },
          "instances": [
            { "id": "berlin", "params": { "city": "Berlin" } },
            { "id": "tokyo", "timeZone": "Asia/Tokyo", "schedule": { "at": ["07:00", "19:00"] }, "params": { "city": "Tokyo" } },
            { "id": "nyc", "title": "New York ({{ widget.timeZone }})", "timeZone": "America/New_York",
              "placeholder": { "message": "{{ widget.title }}: no data yet", "size": "{{ params.size }}" },
              "params": { "city": "New York", "size": 3 } }
          ]
        }
        """#

    @Test func instancesOverrideTitleTimeZoneScheduleAndPlaceholder() throws {
        let result = read(Self.cities)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let widgets = result.widgets.map(\.definition)
        #expect(widgets.map(\.id) == ["weather.berlin", "weather.tokyo", "weather.nyc"])
        #expect(widgets.map(\.timeZone.identifier) == ["Europe/Berlin", "Asia/Tokyo", "America/New_York"])
        #expect(
            widgets.map(\.schedule.rule) == [
                .every(WidgetDuration(seconds: 1_800)),
                .at([TimeOfDay(hour: 7, minute: 0), TimeOfDay(hour: 19, minute: 0)]),
                .every(WidgetDuration(seconds: 1_800)),
            ])
        #expect(widgets.map(\.title) == ["Berlin weather", "Tokyo weather", "New York (America/New_York)"])
    }

    @Test func placeholdersAreRenderedWithEachInstancesParamsKeepingTypes() throws {
        let widgets = read(Self.cities).widgets.map(\.definition)
        try #require(widgets.count == 3)
        #expect(widgets[0].placeholder == ["city": "Berlin", "temperature": nil, "note": "Waiting for BERLIN"])
        #expect(widgets[1].placeholder == ["city": "Tokyo", "temperature": nil, "note": "Waiting for TOKYO"])
        // The instance's own placeholder replaces the definition's whole; it sees the rendered title.
        #expect(widgets[2].placeholder == ["message": "New York (America/New_York): no data yet", "size": 3])
    }

    @Test func aDefinitionWithoutInstancesRendersItsTitleWithWidget() throws {
        let result = read(
            #"{"id": "clock", "title": "{{ widget.id | upcase }} in {{ widget.timeZone }}", "timeZone": "Asia/Tokyo", "source": {"path": "x.json"}}"#
        )
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.first?.definition.title == "CLOCK in Asia/Tokyo")
    }

    @Test func aTitleThatIsPlainTextIsKeptAsWritten() throws {
        let result = read(#"{"title": "Tea & {cakes}", "source": {"path": "x.json"}, "placeholder": {"t": "{ not a template }"}}"#)
        #expect(result.widgets.first?.definition.title == "Tea & {cakes}")
        #expect(result.widgets.first?.definition.placeholder == ["t": "{ not a template }"])
    }

    // MARK: - Bad overrides

    @Test func anInstanceTimeZoneThatIsNotKnownIsReportedAtItsPlaceWithAHint() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "instances": [
                    { "id": "a", "timeZone": "Europe/Berln" },
                    { "id": "b", "timeZone": "Mars/Olympus" }
                  ]
                }
                """#) == [
                    #"widgets.d/weather.json:4:30: $.instances[0].timeZone: "Europe/Berln" is not a known time zone; did you mean 'Europe/Berlin'?"#,
                    #"widgets.d/weather.json:5:30: $.instances[1].timeZone: "Mars/Olympus" is not a known time zone; use an IANA name such as "America/New_York" or "UTC""#,
                ])
    }

    @Test func anInstanceScheduleIsCheckedLikeTheDefinitions() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "instances": [
                    { "id": "a", "schedule": { "every": "15 minutes" } },
                    { "id": "b", "schedule": { "every": "1m", "jitter": "soon" } },
                    { "id": "c", "schedule": { "evry": "1h" } }
                  ]
                }
                """#) == [
                    #"widgets.d/weather.json:4:41: $.instances[0].schedule.every: "15 minutes" is not a duration; write e.g. "15m", "24h" or "1h30m""#,
                    #"widgets.d/weather.json:5:41: $.instances[1].schedule.every: "1m" is shorter than 5 minutes; add "allowFrequent": true if the source allows it, or use e.g. "5m""#,
                    #"widgets.d/weather.json:5:57: $.instances[1].schedule.jitter: "soon" is not a duration; write e.g. "15m", "24h" or "1h30m""#,
                    "widgets.d/weather.json:6:32: $.instances[2].schedule.evry: unknown key 'evry'; did you mean 'every'?",
                ])
    }

    @Test func aTitleOrPlaceholderThatReadsDataIsReportedWithTheFix() {
        #expect(
            problems(
                #"""
                {
                  "title": "{{ city }} weather",
                  "source": { "path": "x.json" },
                  "placeholder": { "t": "{{ inputs.now.temperature }}" },
                  "instances": [ { "id": "a", "params": { "city": "Oslo" } } ]
                }
                """#) == [
                    #"widgets.d/weather.json:2:12: $.title: the title is rendered once, when the definition loads, with params and widget only: "city" is not known then; write params.city and set "city" in each instance's "params""#,
                    #"widgets.d/weather.json:4:25: $.placeholder.t: the placeholder is rendered once, when the definition loads, with params and widget only: "inputs" is not known then; data and the time are not known then; show them in the entries (a "map" transform) instead"#,
                ])
    }

    @Test func aTitleThatReadsTheTimeIsReported() {
        #expect(
            problems(#"{"title": "News of {{ 'now' | date: '%A' }}", "source": {"path": "x.json"}}"#) == [
                #"widgets.d/weather.json:1:11: $.title: the title changes with the time ('now'), but it is rendered once, when the definition loads; date the entries instead (a "map" transform or the timeline)"#
            ])
    }

    @Test func aTemplateErrorInAnInstanceTitleNamesTheColumnInsideTheFile() {
        #expect(
            problems(#"{"source": {"path": "x.json"}, "instances": [{"id": "a", "title": "{{ params.city | upcse }}"}]}"#) == [
                "widgets.d/weather.json:1:85: $.instances[0].title: unknown filter 'upcse' at column 18; did you mean 'upcase'?"
            ])
    }

    @Test func aTitleThatFailsForOneInstanceNamesThatInstance() {
        #expect(
            problems(
                #"""
                {
                  "title": "{{ 100 | divided_by: params.share }}%",
                  "source": { "path": "x.json" },
                  "instances": [ { "id": "half", "params": { "share": 2 } }, { "id": "none", "params": { "share": 0 } } ]
                }
                """#) == [
                    #"widgets.d/weather.json:2:12: $.title: the title cannot be rendered for the instance "none": divided_by: cannot divide by zero at column 10"#
                ])
    }

    @Test func aSecretInATitleIsRefusedAsEverywhereOutsideASource() {
        #expect(
            problems(#"{"title": "{{ env.HOME }}", "source": {"path": "x.json"}}"#) == [
                #"widgets.d/weather.json:1:11: $.title: {{ env.… }} may only be used in a source's "url", "headers" and "body", so that secrets never reach a snapshot; move it there"#
            ])
    }
}
