import Foundation
import Testing
import WidgetCore
import WidgetRuntime

/// Joke of the Day in every family of the six-seed gallery, as a person sees it in the browser, against
/// what the app's widget shows (itsBrianCreates/mr-funny-jokes-ios-app, `MrFunnyJokes/JokeOfTheDayWidget/`):
/// the setup and never the punchline (until "Reveal" is opened, our addition), the teller's name, the
/// category in large only, and the three lock-screen families.
@Suite(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
struct JokeOfTheDayFamiliesTests {
    static let setup = "Why don't scientists trust atoms?"
    static let punchline = "Because they make up everything!"

    @Test func eachFamilyShowsWhatTheAppsWidgetShowsAndThePunchlineStaysClosed() async throws {
        let gallery = try await SeedGalleryPage.shared.value

        func joke(_ family: String) throws -> String {
            let texts = try #require(gallery.light[family], "\(family)")
            return try #require(texts["joke-of-the-day"], "\(family): \(texts.keys.sorted())")
        }

        // Small and medium: the badge, the setup, the teller (JokeOfTheDayWidgetViews.swift:42-79, :100-134).
        for family in ["small", "medium"] {
            let text = try joke(family)
            for shown in ["JOKE OF THE DAY", Self.setup, "Mr. Sad", "Reveal"] {
                #expect(text.contains(shown), "\(family) shows \(shown): \(text)")
            }
            #expect(!text.contains(Self.punchline), "\(family) keeps the punchline closed: \(text)")
            #expect(!text.contains("Dad Jokes"), "the category is large's alone (:197-207): \(text)")
        }
        // Large adds the category (JokeOfTheDayWidgetViews.swift:197-207).
        let large = try joke("large")
        for shown in ["JOKE OF THE DAY", Self.setup, "Mr. Sad", "Dad Jokes", "Reveal"] {
            #expect(large.contains(shown), "large shows \(shown): \(large)")
        }
        #expect(!large.contains(Self.punchline), "\(large)")
        // The lock screen (LockScreenWidgetViews.swift): a face; the name and the setup; "Name: setup".
        let circular = try joke("accessoryCircular")
        #expect(circular.contains("☺"), "\(circular)")
        #expect(!circular.contains(Self.setup) && !circular.contains("Mr. Sad"), "\(circular)")
        let rectangular = try joke("accessoryRectangular")
        #expect(rectangular.contains("Mr. Sad\n") && rectangular.contains(Self.setup), "\(rectangular)")
        #expect(!rectangular.contains(Self.punchline) && !rectangular.contains("Reveal"), "\(rectangular)")
        let inline = try joke("accessoryInline")
        #expect(inline.contains("Mr. Sad: \(Self.setup)"), "\(inline)")
        #expect(!inline.contains(Self.punchline), "\(inline)")
        // The app offers no extra-large widget (JokeOfTheDayWidget.swift:24-29).
        let extraLarge = try joke("extraLarge")
        #expect(extraLarge.contains("Unavailable in this size"), "\(extraLarge)")
        #expect(!extraLarge.contains(Self.setup), "\(extraLarge)")
    }
}
