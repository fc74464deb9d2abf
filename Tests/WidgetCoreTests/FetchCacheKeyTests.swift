import Testing
import WidgetCore

/// A fetch-cache key is written in a widget's state as text and read back as the same key.
struct FetchCacheKeyTests {
    @Test(arguments: [
        FetchCacheKey(.source),
        FetchCacheKey(.input("daily")),
        FetchCacheKey(.transform(index: 1, type: "fetch"), request: "GET https://example.com/item/1 "),
        FetchCacheKey(.transform(index: 12, type: "fetch"), request: ""),
    ])
    func aKeyReadsBackFromItsText(_ key: FetchCacheKey) {
        #expect(FetchCacheKey(key.description) == key)
    }

    @Test func theTextIsTheStageThenTheRequest() {
        #expect(FetchCacheKey(.source).description == "source")
        #expect(FetchCacheKey(.input("daily")).description == "inputs.daily")
        #expect(FetchCacheKey(.transform(index: 1, type: "fetch"), request: "KEY").description == "transforms[1] (fetch) KEY")
    }

    @Test(arguments: ["", "parser", "inputs.", "transforms[x] (fetch) KEY", "transforms[1] (fetch)", "timeline"])
    func otherTextIsNoKey(_ text: String) {
        #expect(FetchCacheKey(text) == nil)
    }
}
