import Testing

@testable import WidgetJSON

/// The I-Regexp engine behind `match` and `search`: RFC 9485's grammar, matched in linear time.
@Suite(.timeLimit(.minutes(5)))
struct IRegexpTests {
    func matches(_ pattern: String, _ text: String, anchored: Bool = true) -> Bool? {
        IRegexp(pattern, anchored: anchored)?.matches(text)
    }

    @Test func readsTheGrammar() {
        #expect(matches("ab|cd", "cd") == true)
        #expect(matches("ab|cd", "abcd") == false)
        #expect(matches("ab|cd", "xabx", anchored: false) == true)
        #expect(matches("a{2,3}", "aaa") == true)
        #expect(matches("a{2,3}", "aaaa") == false)
        #expect(matches("a{2,}", "aaaaaaa") == true)
        #expect(matches("a{2}", "a") == false)
        #expect(matches("(ab)+c?", "ababc") == true)
        #expect(matches("[a-c-]+", "a-b-c") == true)
        #expect(matches("[^a-c]", "d") == true)
        #expect(matches("[^a-c]", "b") == false)
        #expect(matches(#"\p{Lu}\p{Ll}+"#, "Élan") == true)
        #expect(matches(#"\P{N}+"#, "abc") == true)
        #expect(matches(#"\P{N}+"#, "a1c") == false)
        #expect(matches(#"[\p{Nd}.]+"#, "3.14") == true)
        #expect(matches(".", "\n") == false)
        #expect(matches(".", "😀") == true)
        #expect(matches(#"\.\*\\"#, #".*\"#) == true)
        #expect(matches("^ab", "xab", anchored: false) == false)
        #expect(matches("ab$", "xab", anchored: false) == true)
        #expect(matches("", "", anchored: true) == true)
        #expect(matches("", "x", anchored: false) == true)
    }

    @Test func refusesWhatIsNotAnIRegexp() {
        for pattern in ["(", "a{1001}", "a{3,2}", "[]", "[b-a]", #"\d"#, #"\p{IsBasicLatin}"#, "a**", "(?:a)", "*"] {
            #expect(IRegexp(pattern, anchored: true) == nil, "\(pattern)")
        }
    }

    @Test func refusesAProgramThatRepetitionsMakeTooLarge() {
        #expect(IRegexp("(a{1000}){1000}", anchored: true) == nil)
        #expect(IRegexp("(a{100}){100}", anchored: true) != nil)
    }

    /// Patterns that make a backtracking engine take exponential time on a string that almost matches.
    @Test(arguments: ["(a+)+$", "(a|a)*b", "(a*)*b", "(a|aa)+$", "((a+)+)+c", "(.*a){20}b"])
    func hostilePatternsOnLongStringsEndAtOnce(pattern: String) {
        let text = String(repeating: "a", count: 5_000) + "!"
        #expect(IRegexp(pattern, anchored: false)?.matches(text) == false)
        #expect(IRegexp(pattern, anchored: true)?.matches(text) == false)
        // And they still match what they should.
        let good = String(repeating: "a", count: 5_000) + (pattern.hasSuffix("b") ? "b" : pattern.hasSuffix("c") ? "c" : "")
        #expect(IRegexp(pattern, anchored: false)?.matches(good) == true, "\(pattern)")
    }
}
