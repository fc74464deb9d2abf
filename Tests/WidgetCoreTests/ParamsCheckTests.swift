import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// `validate` catches a template that reads `params` where nothing gives them: a definition without
/// `instances`, or an instance whose `params` lack a name read on every render. Reported at the
/// template, naming the instance and where its `params` are, with a fix.
struct ParamsCheckTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func problems(_ text: String) -> [String] {
        reader.read(Data(text.utf8), file: "widgets.d/weather.json").diagnostics.map(\.description)
    }

    @Test func paramsWithoutInstancesAreReportedWhereTheyAreRead() {
        #expect(
            problems(
                #"""
                {
                  "source": { "url": "https://api.example.com/weather?q={{ params.city }}" }
                }
                """#) == [
                    #"widgets.d/weather.json:2:22: $.source.url: the template reads params.city, but this definition has no "instances" to give params, so it is always empty; add "instances": [{"id": "home", "params": {"city": …}}], or write the value in place of params.city"#
                ])
        // Guarded or not, in a transform too: without instances params are always empty.
        #expect(
            problems(#"{"source": {"path": "w.json"}, "transforms": [{"type": "map", "fields": {"t": "{% if params.x %}x{% endif %}"}}]}"#)
                .first?.contains("$.transforms[0].fields.t: the template reads params.x, but this definition has no \"instances\"") == true)
    }

    @Test func aParamAnInstanceLacksIsReportedForThatInstance() {
        let found = problems(
            #"""
            {
              "source": { "url": "https://api.example.com/weather?q={{ params.city | url_encode }}&units={{ params.units }}" },
              "instances": [
                { "id": "home", "params": { "city": "Paris", "units": "metric" } },
                { "id": "work", "params": { "city": "Lyon" } }
              ]
            }
            """#)
        #expect(
            found == [
                #"widgets.d/weather.json:2:22: $.source.url: the template reads params.units, which the instance "work" does not set ($.instances[1].params); add "units" to its "params", or read it as {{ params.units | default: … }}"#
            ])
    }

    @Test func guardedReadsAndGivenParamsPass() {
        #expect(
            problems(
                #"""
                {
                  "source": { "url": "https://api.example.com/w?q={{ params.city }}{% if params.zip %}&zip={{ params.zip }}{% endif %}&u={{ params.units | default: 'metric' }}" },
                  "instances": [
                    { "id": "home", "params": { "city": "Paris", "zip": "75001" } },
                    { "id": "work", "params": { "city": "Lyon" } }
                  ]
                }
                """#) == [])
        #expect(problems(#"{"source": {"url": "https://api.example.com/w"}}"#) == [])
    }

    @Test func templatesTellWhichMembersTheyRead() throws {
        let template = try Template(
            "{{ params.city }}-{{ params['country'] | upcase }}{% if params.zip %}{{ params.zip }}{% endif %}{{ params.x | default: 1 }}")
        #expect(template.members(of: "params") == ["city", "country", "zip", "x"])
        #expect(template.requiredMembers(of: "params") == ["city", "country"])
        #expect(try Template("{{ params[key] }}{{ item.city }}").members(of: "params") == [])
        #expect(try Template("{{ 'a' | append: params.suffix }}").requiredMembers(of: "params") == ["suffix"])
    }
}
