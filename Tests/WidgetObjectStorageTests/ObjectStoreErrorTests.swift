import Testing
import WidgetObjectStorage

struct ObjectStoreErrorTests {
    @Test func onlyThrottlingServerErrorsAndNoAnswerAreWorthRetrying() {
        #expect(ObjectStoreError(.throttled(retryAfter: nil), message: "").isTransient)
        #expect(ObjectStoreError(.server(status: 500), message: "").isTransient)
        #expect(ObjectStoreError(.unreachable, message: "").isTransient)
        #expect(!ObjectStoreError(.denied, message: "").isTransient)
        #expect(!ObjectStoreError(.preconditionFailed, message: "").isTransient)
        #expect(!ObjectStoreError(.noSuchBucket, message: "").isTransient)
    }
}
