import Foundation
import Testing
import WidgetCore

/// The daemon's clock cancels a sleep every time a refresh finishes: the sleep must end at once, with
/// `CancellationError`, however long it was asked to be. (No test waits for real time to pass.)
struct SystemClockTests {
    @Test func aCancelledSleepEndsAtOnce() async throws {
        let sleeper = Task { try await SystemClock().sleep(until: Date().addingTimeInterval(3_600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aSleepCancelledBeforeItStartsEndsAtOnce() async throws {
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await SystemClock().sleep(until: Date().addingTimeInterval(3_600))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aSleepUntilAPastMomentReturnsAtOnce() async throws {
        try await SystemClock().sleep(until: Date().addingTimeInterval(-1))
    }
}
