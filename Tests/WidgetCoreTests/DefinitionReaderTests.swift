import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

struct DefinitionReaderTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func read(_ text: String, file: String = "widgets.d/news.json") -> DefinitionReader.Result {
        reader.read(Data(text.utf8), file: file)
    }

    private func problems(_ text: String, file: String = "widgets.d/news.json") -> [String] {
        read(text, file: file).diagnostics.map(\.description)
    }

    private static let jotd = #"""
        {
          "title": "Joke of the Day",
          "timeZone": "America/New_York",
          "inputs": {
            "daily": { "url": "https://firestore.googleapis.com/v1/projects/mr-funny-jokes/databases/(default)/documents/daily_jokes/{{ 'now' | date: '%Y-%m-%d' }}",
                       "parser": "firestore" }
          },
          "source": { "url": "https://firestore.googleapis.com/v1/projects/mr-funny-jokes/databases/(default)/documents/jokes/{{ inputs.daily.joke_id }}" },
          "parser": "firestore",
          "transforms": [
            { "type": "map", "fields": { "text": "{{ text }}", "character": "{{ character | default: 'Mr. Funny' }}", "category": "{{ type }}" } }
          ],
          "timeline": { "type": "single" },
          "schedule": { "at": ["00:00"] },
          "staleAfter": "24h",
          "fallback": { "keep": 20, "pick": "daily" },
          "placeholder": { "text": "Open Mr. Funny Jokes to get started!" }
        }
        """#

    // MARK: - Valid definitions

    @Test func jokeOfTheDayExampleReadsIntoTheModel() throws {
        let result = read(Self.jotd, file: "widgets.d/jotd.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let widget = try #require(result.widgets.first)
        #expect(result.widgets.count == 1)
        let definition = widget.definition
        #expect(definition.id == "jotd")
        #expect(definition.title == "Joke of the Day")
        #expect(definition.timeZone.identifier == "America/New_York")
        #expect(definition.inputs.map(\.name) == ["daily"])
        #expect(definition.inputs.first?.source.typeName == "http")
        #expect(definition.inputs.first?.parser.typeName == "firestore")
        #expect(definition.inputs.first?.source.options.keys.sorted() == ["url"])
        #expect(definition.source.typeName == "http")
        #expect(definition.parser.typeName == "firestore")
        #expect(definition.transforms.map(\.typeName) == ["map"])
        #expect(definition.transforms.first?.path.description == "$.transforms[0]")
        #expect(definition.timeline.stage.typeName == "single")
        #expect(definition.schedule.rule == .at([TimeOfDay(hour: 0, minute: 0)]))
        #expect(definition.schedule.maxPerDay == nil)
        #expect(definition.staleAfter == WidgetDuration(seconds: 86_400))
        #expect(definition.fallback == FallbackPolicy(keep: 20, pick: .daily))
        #expect(definition.placeholder == .object(["text": "Open Mr. Funny Jokes to get started!"]))
        #expect(definition.file == "widgets.d/jotd.json")
        #expect(widget.inputs.map(\.name) == ["daily"])
        #expect(widget.transformers.count == 1)
    }

    @Test func inputsKeepTheOrderTheyAreWrittenIn() throws {
        let result = read(
            #"""
            {
              "inputs": {
                "zeta": { "path": "z.json" },
                "alpha": { "path": "a.json", "parser": "json" },
                "mid": { "url": "https://example.com/{{ inputs.zeta.n }}" }
              },
              "source": { "path": "x.json" }
            }
            """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let widget = try #require(result.widgets.first)
        #expect(widget.definition.inputs.map(\.name) == ["zeta", "alpha", "mid"])
        #expect(widget.definition.inputs.map(\.source.typeName) == ["file", "file", "http"])
        #expect(widget.inputs.map(\.name) == ["zeta", "alpha", "mid"])
    }

    @Test func missingOptionalKeysTakeTheirDefaults() throws {
        let result = read(#"{"source": {"path": "x.json"}}"#)
        let definition = try #require(result.widgets.first).definition
        #expect(definition.id == "news")
        #expect(definition.title == nil)
        #expect(definition.timeZone == TimeZone(identifier: "UTC"))
        #expect(definition.parser.typeName == "json")
        #expect(definition.timeline.stage.typeName == "single")
        #expect(definition.schedule == Schedule())
        #expect(definition.schedule.rule == .every(WidgetDuration(seconds: 3_600)))
        #expect(definition.staleAfter == nil)
        #expect(definition.fallback == FallbackPolicy(keep: 1, pick: .latest))
        #expect(definition.placeholder == nil)
    }

    @Test func anExplicitIDReplacesTheFileName() throws {
        let result = read(#"{"id": "headlines", "source": {"path": "x.json"}}"#)
        #expect(try #require(result.widgets.first).id == "headlines")
    }

    @Test func scheduleForms() throws {
        func rule(_ schedule: String) throws -> Schedule {
            let result = read(#"{"source": {"path": "x.json"}, "schedule": \#(schedule)}"#)
            #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
            return try #require(result.widgets.first).definition.schedule
        }
        #expect(try rule(#"{"every": "15m"}"#).rule == .every(WidgetDuration(seconds: 900)))
        #expect(
            try rule(#"{"at": ["20:00", "08:00", "08:00"]}"#).rule == .at([TimeOfDay(hour: 8, minute: 0), TimeOfDay(hour: 20, minute: 0)]))
        #expect(try rule(#"{"at": "07:30:15"}"#).rule == .at([TimeOfDay(hour: 7, minute: 30, second: 15)]))
        #expect(try rule(#"{"cron": "0 */4 * * *"}"#).rule == .cron("0 */4 * * *"))
        #expect(try rule(#""atEnd""#).rule == .atEnd)
        #expect(try rule(#""never""#).rule == .never)
        let full = try rule(#"{"every": "1h", "jitter": "5m", "maxPerDay": 24}"#)
        #expect(full.jitter == WidgetDuration(seconds: 300))
        #expect(full.maxPerDay == 24)
    }

    // MARK: - Problems, one at a time

    @Test func unknownTopLevelKeySuggestsTheClosestKey() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "titel": "News"
                }
                """#) == [
                    #"widgets.d/news.json:3:3: $.titel: unknown key 'titel'; did you mean 'title'?"#
                ])
    }

    @Test func unknownTopLevelKeyWithoutCloseMatchListsTheKnownKeys() {
        #expect(
            problems(#"{"source": {"path": "x.json"}, "colour": "red"}"#) == [
                "widgets.d/news.json:1:32: $.colour: unknown key 'colour'; known keys: 'id', 'title', 'description', "
                    + "'timeZone', 'inputs', 'source', 'parser', 'transforms', 'timeline', 'schedule', 'staleAfter', "
                    + "'deadline', 'fallback', 'placeholder', 'instances', 'view', 'notify', 'history'"
            ])
    }

    @Test func badDurationNamesTheValueAndAFix() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "staleAfter": "24 hours"
                }
                """#) == [
                    #"widgets.d/news.json:3:17: $.staleAfter: "24 hours" is not a duration; write e.g. "15m", "24h" or "1h30m""#
                ])
    }

    @Test func badIDKeyIsRejected() {
        #expect(
            problems(
                #"""
                {
                  "id": "News!",
                  "source": { "path": "x.json" }
                }
                """#) == [
                    #"widgets.d/news.json:2:9: $.id: "News!" is not a valid id; an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"#
                ])
    }

    @Test func badFileNameWithoutIDIsRejected() {
        #expect(
            problems(#"{"source": {"path": "x.json"}}"#, file: "widgets.d/My News.json") == [
                #"widgets.d/My News.json:1:1: $: the file name gives the id "My News", which is not valid; rename the file or add an "id" key; an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"#
            ])
        #expect(problems(#"{"id": "my-news", "source": {"path": "x.json"}}"#, file: "widgets.d/My News.json").isEmpty)
    }

    @Test func idPatternAllowsOnlySafeNames() {
        #expect(DefinitionReader.isValidID("jotd"))
        #expect(DefinitionReader.isValidID("bitdream.home"))
        #expect(DefinitionReader.isValidID("0-news_2"))
        #expect(DefinitionReader.isValidID(String(repeating: "a", count: 64)))
        #expect(!DefinitionReader.isValidID(String(repeating: "a", count: 65)))
        #expect(!DefinitionReader.isValidID(""))
        #expect(!DefinitionReader.isValidID(".hidden"))
        #expect(!DefinitionReader.isValidID("../etc"))
        #expect(!DefinitionReader.isValidID("a/b"))
        #expect(!DefinitionReader.isValidID("News"))
        #expect(!DefinitionReader.isValidID("café"))
    }

    @Test func unknownParserListsTheKnownParsers() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "parser": "yaml"
                }
                """#) == [
                    "widgets.d/news.json:3:13: $.parser: unknown parser type 'yaml'; known: 'firestore', 'json'"
                ])
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "parser": { "type": "jsn" }
                }
                """#) == [
                    "widgets.d/news.json:3:23: $.parser.type: unknown parser type 'jsn'; did you mean 'json'? known: 'firestore', 'json'"
                ])
    }

    @Test func unknownOptionInsideAStageSuggestsTheClosestOption() {
        #expect(
            problems(
                #"""
                {
                  "source": { "url": "https://example.com/news", "maxBytez": 1000 }
                }
                """#) == [
                    "widgets.d/news.json:2:50: $.source.maxBytez: unknown key 'maxBytez'; did you mean 'maxBytes'?"
                ])
    }

    @Test func unknownOptionOfAStageWithoutOptionsIsRejected() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "parser": { "type": "json", "strict": true }
                }
                """#) == [
                    "widgets.d/news.json:3:31: $.parser.strict: unknown key 'strict'; this object takes no keys"
                ])
    }

    @Test func wrongOptionTypeNamesWhatWasExpected() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "transforms": [
                    { "type": "limit", "count": "four" }
                  ]
                }
                """#) == [
                    "widgets.d/news.json:4:33: $.transforms[0].count: expected a whole number, found string"
                ])
    }

    @Test func intervalUnderFiveMinutesNeedsAllowFrequent() throws {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "schedule": { "every": "2m" }
                }
                """#) == [
                    #"widgets.d/news.json:3:26: $.schedule.every: "2m" is shorter than 5 minutes; add "allowFrequent": true if the source allows it, or use e.g. "5m""#
                ])
        let allowed = read(#"{"source": {"path": "x.json"}, "schedule": {"every": "2m", "allowFrequent": true}}"#)
        #expect(allowed.diagnostics.isEmpty)
        let schedule = try #require(allowed.widgets.first).definition.schedule
        #expect(schedule.rule == .every(WidgetDuration(seconds: 120)))
        #expect(schedule.allowFrequent)
        #expect(problems(#"{"source": {"path": "x.json"}, "schedule": {"every": "5m"}}"#).isEmpty)
    }

    @Test func cronFiringMoreOftenThanEveryFiveMinutesNeedsAllowFrequent() {
        func check(_ cron: String, allowFrequent: Bool = false) -> [String] {
            problems(#"{"source": {"path": "x.json"}, "schedule": {"cron": "\#(cron)", "allowFrequent": \#(allowFrequent)}}"#)
        }
        #expect(
            check("* * * * *") == [
                #"widgets.d/news.json:1:53: $.schedule.cron: "* * * * *" fires more often than every 5 minutes; add "allowFrequent": true if the source allows it, or use e.g. "*/5 * * * *""#
            ])
        #expect(check("0,2 9 * * *").count == 1)
        #expect(check("58 * * * *").isEmpty)
        #expect(check("0,58 9,10 * * *").count == 1, "09:58 then 10:00 is two minutes apart")
        #expect(check("0,58 9,11 * * *").isEmpty)
        #expect(check("*/5 * * * *").isEmpty)
        #expect(check("@hourly").isEmpty)
        #expect(check("* * * * *", allowFrequent: true).isEmpty)
    }

    @Test func templateColumnCountsEscapesAsWritten() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "timeline": { "type": "single", "url": "\"\u00e9\ud83d\ude00{{ a | upcse }}" }
                }
                """#) == [
                    "widgets.d/news.json:3:70: $.timeline.url: unknown filter 'upcse' at column 11; did you mean 'upcase'?"
                ])
    }

    @Test func cronProblemColumnIsInsideTheFile() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "schedule": { "cron": "0 25 * * *" }
                }
                """#) == [
                    "widgets.d/news.json:3:28: $.schedule.cron: '25' is not allowed in the hour field at column 3; use numbers 0-23, '*', ranges 'a-b', steps '/n' and lists 'a,b'"
                ])
    }

    @Test func cronThatNeverFiresIsRejected() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "schedule": { "cron": "0 0 30 2 *" }
                }
                """#) == [
                    #"widgets.d/news.json:3:30: $.schedule.cron: the cron expression "0 0 30 2 *" can never fire: no chosen month has the chosen day at column 5; check the day of month and the month"#
                ])
    }

    @Test func badTimeOfDayIsRejected() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "schedule": { "at": ["08:00", "8am", "24:00"] }
                }
                """#) == [
                    #"widgets.d/news.json:3:33: $.schedule.at[1]: "8am" is not a time of day; write e.g. "08:00" (24-hour HH:MM)"#,
                    #"widgets.d/news.json:3:40: $.schedule.at[2]: "24:00" is not a time of day; write e.g. "08:00" (24-hour HH:MM)"#,
                ])
    }

    @Test func badTimeZoneSuggestsTheClosestZone() {
        #expect(
            problems(
                #"""
                {
                  "timeZone": "America/New_Yrok",
                  "source": { "path": "x.json" }
                }
                """#) == [
                    #"widgets.d/news.json:2:15: $.timeZone: "America/New_Yrok" is not a known time zone; did you mean 'America/New_York'?"#
                ])
    }

    @Test func envTemplatesAreAllowedInSourceURLHeadersAndBodyOnly() {
        #expect(
            problems(
                #"""
                {
                  "inputs": { "token": { "url": "https://example.com/token?key={{ env.KEY }}" } },
                  "source": {
                    "url": "https://example.com/{{ env.ACCOUNT }}/news",
                    "headers": { "Authorization": "Bearer {{ env.TOKEN }}" },
                    "body": { "query": { "secret": "{{ env.QUERY }}" } }
                  }
                }
                """#
            ).isEmpty)
        let message =
            "{{ env.… }} may only be used in a source's \"url\", \"headers\" and \"body\", so that secrets never reach a snapshot; move it there"
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "transforms": [ { "type": "map", "fields": { "key": "{{ env.TOKEN }}" } } ],
                  "timeline": { "type": "single", "url": "app://{{ env.TOKEN }}" },
                  "placeholder": { "text": "{{ 'x' | append: env.TOKEN }}" }
                }
                """#) == [
                    "widgets.d/news.json:3:55: $.transforms[0].fields.key: \(message)",
                    "widgets.d/news.json:4:42: $.timeline.url: \(message)",
                    "widgets.d/news.json:5:28: $.placeholder.text: \(message)",
                ])
    }

    @Test func whenIsATemplateOfThePipelineNotAnOptionOfTheSource() throws {
        let result = read(
            #"""
            {
              "inputs": {
                "airport": { "path": "airport.json" },
                "metar": { "url": "https://aviationweather.gov/api/data/metar?ids={{ inputs.airport.id }}", "when": "{{ inputs.airport.id }}" }
              },
              "source": { "path": "x.json", "when": "{{ inputs.metar | size }}" }
            }
            """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let definition = try #require(result.widgets.first?.definition)
        #expect(definition.inputs.map { $0.when?.source } == [nil, "{{ inputs.airport.id }}"])
        #expect(definition.inputs[1].source.options["when"] == nil)
        #expect(definition.sourceWhen?.source == "{{ inputs.metar | size }}")
        #expect(definition.source.options == ["path": "x.json"])
    }

    @Test func aWhenThatIsNotATemplateOrReadsASecretIsReported() {
        let message =
            "{{ env.… }} may only be used in a source's \"url\", \"headers\" and \"body\", so that secrets never reach a snapshot; move it there"
        #expect(
            problems(
                #"""
                {
                  "inputs": { "a": { "path": "a.json", "when": true } },
                  "source": { "path": "x.json", "when": "{{ env.TOKEN }}" }
                }
                """#) == [
                    "widgets.d/news.json:2:48: $.inputs.a.when: a template must be a string, not boolean",
                    "widgets.d/news.json:3:41: $.source.when: \(message)",
                ])
    }

    @Test func unknownFilterInATemplateReportsTheColumnInsideTheFile() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "transforms": [ { "type": "map", "fields": { "title": "{{ title | upcse }}" } } ]
                }
                """#) == [
                    "widgets.d/news.json:3:69: $.transforms[0].fields.title: unknown filter 'upcse' at column 12; did you mean 'upcase'?"
                ])
    }

    @Test func unknownFilterInATimelineTemplateReportsTheColumnInsideTheFile() {
        #expect(
            problems(
                #"""
                {
                  "source": { "path": "x.json" },
                  "timeline": { "type": "single", "relevance": "{{ score | divided_bi: 10 }}" }
                }
                """#) == [
                    "widgets.d/news.json:3:60: $.timeline.relevance: unknown filter 'divided_bi' at column 12; did you mean 'divided_by'?"
                ])
    }

    @Test func instancesExpandToSuffixedIDsWithTheirParams() throws {
        let result = read(
            #"""
            {
              "id": "bitdream",
              "title": "Server",
              "source": { "url": "http://{{ params.host }}:9091/transmission/rpc" },
              "instances": [
                { "id": "home", "params": { "host": "10.0.0.2" } },
                { "id": "office", "title": "Office server", "params": { "host": "10.0.0.3" } }
              ]
            }
            """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.map(\.id) == ["bitdream.home", "bitdream.office"])
        #expect(result.widgets.map(\.definition.title) == ["Server", "Office server"])
        #expect(result.widgets.map(\.definition.params) == [["host": "10.0.0.2"], ["host": "10.0.0.3"]])
    }

    @Test func duplicateInstanceIDsAreRejected() {
        let result = read(
            #"""
            {
              "source": { "url": "http://{{ params.host }}:9091/" },
              "instances": [
                { "id": "home", "params": { "host": "10.0.0.2" } },
                { "id": "home", "params": { "host": "10.0.0.3" } }
              ]
            }
            """#)
        #expect(result.widgets.isEmpty)
        #expect(
            result.diagnostics.map(\.description) == [
                #"widgets.d/news.json:5:13: $.instances[1].id: the instance id "home" is used twice; give each instance its own id"#
            ])
    }

    @Test func fileThatIsNotJSONReportsLineAndColumn() {
        let result = read("{\n  \"source\": { \"path\": \"x.json\" }\n  \"parser\": \"json\"\n}\n")
        #expect(result.widgets.isEmpty)
        #expect(
            result.diagnostics.map(\.description) == [
                "widgets.d/news.json:3:3: the file is not valid JSON: unexpected '\"'; expected ',' or '}' in an object; fix the syntax at this place"
            ])
        #expect(result.diagnostics.first?.path == nil)
    }

    @Test func definitionThatIsNotAnObjectIsRejected() {
        #expect(
            problems("[1, 2]") == [
                "widgets.d/news.json:1:1: $: a definition must be a JSON object, not array; start the file with '{'"
            ])
    }

    // MARK: - Every problem in one pass

    @Test func everyProblemInAFileIsReportedInOnePassInLineOrder() {
        let result = read(
            #"""
            {
              "schedule": { "every": "2m" },
              "titel": "News",
              "id": "News!",
              "timeZone": "Europe/Lodnon",
              "source": { "url": "https://example.com/{{ env.TOKEN }}", "maxBytez": 10 },
              "parser": "yaml",
              "transforms": [
                { "type": "limit", "count": 2.5 },
                { "type": "map", "fields": { "title": "{{ title | upcse }}", "key": "{{ env.TOKEN }}" } }
              ],
              "staleAfter": "1 day",
              "fallback": { "keep": 0, "pick": "dialy" }
            }
            """#)
        #expect(result.widgets.isEmpty)
        #expect(
            result.diagnostics.map(\.description) == [
                #"widgets.d/news.json:2:26: $.schedule.every: "2m" is shorter than 5 minutes; add "allowFrequent": true if the source allows it, or use e.g. "5m""#,
                "widgets.d/news.json:3:3: $.titel: unknown key 'titel'; did you mean 'title'?",
                #"widgets.d/news.json:4:9: $.id: "News!" is not a valid id; an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"#,
                #"widgets.d/news.json:5:15: $.timeZone: "Europe/Lodnon" is not a known time zone; did you mean 'Europe/London'?"#,
                "widgets.d/news.json:6:61: $.source.maxBytez: unknown key 'maxBytez'; did you mean 'maxBytes'?",
                "widgets.d/news.json:7:13: $.parser: unknown parser type 'yaml'; known: 'firestore', 'json'",
                "widgets.d/news.json:9:33: $.transforms[0].count: 2.5 is not a whole number in range",
                "widgets.d/news.json:10:55: $.transforms[1].fields.title: unknown filter 'upcse' at column 12; did you mean 'upcase'?",
                "widgets.d/news.json:10:73: $.transforms[1].fields.key: {{ env.… }} may only be used in a source's \"url\", \"headers\" and \"body\", so that secrets never reach a snapshot; move it there",
                #"widgets.d/news.json:12:17: $.staleAfter: "1 day" is not a duration; write e.g. "15m", "24h" or "1h30m""#,
                "widgets.d/news.json:13:25: $.fallback.keep: \"keep\" must be a whole number from 1 to 10000",
                #"widgets.d/news.json:13:36: $.fallback.pick: "dialy" is not a pick rule; did you mean 'daily'?"#,
            ])
    }

    @Test func aFileWithOneProblemYieldsNoWidget() {
        let result = read(#"{"source": {"path": "x.json"}, "staleAfter": "soon"}"#)
        #expect(result.widgets.isEmpty)
        #expect(result.diagnostics.count == 1)
    }

    @Test func diagnosticsAreAlsoJSONObjects() throws {
        let result = read(#"{"source": {"path": "x.json"}, "staleAfter": "soon"}"#)
        let diagnostic = try #require(result.diagnostics.first)
        #expect(
            diagnostic.value
                == .object([
                    "file": "widgets.d/news.json",
                    "line": 1,
                    "column": 46,
                    "path": "$.staleAfter",
                    "message": #""soon" is not a duration; write e.g. "15m", "24h" or "1h30m""#,
                ]))
    }

    // MARK: - The model: one description, decoded past every problem

    @Test func aSourceThatCannotBeReadIsReportedOnceAndTheOtherStagesAreStillChecked() {
        // Before the model, each also reported "$.source: missing required key 'path'".
        #expect(
            problems(#"{"source": 5, "transforms": [{"type": "limit"}]}"#) == [
                "widgets.d/news.json:1:12: $.source: a source must be an object such as {\"url\": \"https://…\"}, not number",
                "widgets.d/news.json:1:30: $.transforms[0]: missing required key 'count'",
            ])
        #expect(
            problems(#"{"title": "News"}"#) == [
                #"widgets.d/news.json:1:1: $: the definition has no "source"; add e.g. "source": {"url": "https://…"} or {"path": "data.json"}"#
            ])
    }

    @Test func aMisspeltScheduleRuleIsReportedAsATypoAlone() {
        // Not also as "the schedule has no rule".
        #expect(
            problems(#"{"source": {"path": "x.json"}, "schedule": {"evry": "15m"}}"#) == [
                "widgets.d/news.json:1:45: $.schedule.evry: unknown key 'evry'; did you mean 'every'?"
            ])
        #expect(
            problems(#"{"source": {"path": "x.json"}, "schedule": {"jitter": "5m"}}"#) == [
                #"widgets.d/news.json:1:44: $.schedule: the schedule has no rule; add "every", "at" or "cron", e.g. {"every": "15m"}"#
            ])
    }

    @Test func aMisspeltKeyThatThePipelineReadsIsSuggestedInsideAStage() {
        #expect(
            problems(
                #"""
                {
                  "inputs": { "daily": { "path": "d.json", "parsr": "json" } },
                  "source": { "path": "x.json", "wehn": "{{ inputs.daily }}" },
                  "timeline": { "type": "single", "relevence": "{{ score }}" }
                }
                """#) == [
                    "widgets.d/news.json:2:44: $.inputs.daily.parsr: unknown key 'parsr'; did you mean 'parser'?",
                    "widgets.d/news.json:3:33: $.source.wehn: unknown key 'wehn'; did you mean 'when'?",
                    "widgets.d/news.json:4:35: $.timeline.relevence: unknown key 'relevence'; did you mean 'relevance'?",
                ])
    }

    @Test func theInstancesOfADefinitionReportTheirSharedStagesOnce() {
        #expect(
            problems(
                #"""
                {
                  "source": { "url": "http://{{ params.host }}/" },
                  "transforms": [ { "type": "limit", "count": "all" } ],
                  "instances": [ { "id": "a", "params": { "host": "a" } }, { "id": "b", "params": { "host": "b" } } ]
                }
                """#) == [
                    "widgets.d/news.json:3:47: $.transforms[0].count: expected a whole number, found string"
                ])
    }

    @Test func anInstanceReportsEveryProblemOfItsOwn() {
        #expect(
            problems(#"{"source": {"path": "x.json"}, "instances": [{"params": [1], "titel": "A"}]}"#) == [
                #"widgets.d/news.json:1:46: $.instances[0]: the instance has no "id"; add e.g. "id": "home""#,
                #"widgets.d/news.json:1:57: $.instances[0].params: "params" must be an object of named values"#,
                "widgets.d/news.json:1:62: $.instances[0].titel: unknown key 'titel'; did you mean 'title'?",
            ])
    }

    @Test func aTimelineNamedByAnythingButAStringOrObjectShowsATimelineName() {
        #expect(
            problems(#"{"source": {"path": "x.json"}, "timeline": 3}"#) == [
                #"widgets.d/news.json:1:44: $.timeline: the timeline must be a name such as "single" or an object with "type", not number"#
            ])
    }

    @Test func aDefinitionMayNameItsSchema() {
        #expect(problems(#"{"$schema": "https://widgetd.dev/schema/definition.json", "source": {"path": "x.json"}}"#).isEmpty)
        #expect(
            problems(#"{"$schema": 1, "source": {"path": "x.json"}}"#) == [
                #"widgets.d/news.json:1:13: $['$schema']: "$schema" must be a string, not number"#
            ])
    }

    @Test func theStrictDecoderStopsAtTheFirstProblemOfADocument() {
        let value: WidgetValue = ["source": ["path": "x.json"], "titel": "a", "fallback": ["keep": 0]]
        #expect(
            throws: OptionsError(
                path: ValuePath.root.appending("fallback").appending("keep"), message: #""keep" must be a whole number from 1 to 10000"#)
        ) {
            try OptionsDecoder().decode(DefinitionDocument.self, from: value)
        }
        var problems: [OptionsError] = []
        let document = OptionsDecoder().decode(DefinitionDocument.self, from: value, problems: &problems)
        #expect(document?.fallback == FallbackPolicy())
        #expect(
            problems.map(\.description) == [
                #"$.fallback.keep: "keep" must be a whole number from 1 to 10000"#,
                "$.titel: unknown key 'titel'; did you mean 'title'?",
            ])
    }

    @Test func theKeysListedEverywhereAreTheModelsKeys() {
        #expect(
            DefinitionReader.topLevelKeys == [
                "$schema", "id", "title", "description", "timeZone", "inputs", "source", "parser", "transforms",
                "timeline", "schedule", "staleAfter", "deadline", "fallback", "placeholder", "instances", "view", "notify",
                "history",
            ])
        #expect(DefinitionReader.instanceKeys == ["id", "title", "timeZone", "schedule", "placeholder", "params"])
        #expect(DefinitionDocument.shape.keys.map(\.name) == DefinitionReader.topLevelKeys)
        #expect(DefinitionDocument.shape.required == ["source"])
    }
}
