import Testing

@testable import WidgetStages

/// The minimum-rate check, on times given by the test: the window starts with the first byte and
/// slides.
struct TransferProgressTests {
    static let second: UInt64 = 1_000_000_000

    @Test func silenceBeforeTheFirstByteIsLeftToTheConnectTimeout() {
        var progress = TransferProgress(minimum: 100, window: 10)
        for tick in 0...60 {
            let fastEnough = progress.isFastEnough(received: 0, at: UInt64(tick) * Self.second)
            #expect(fastEnough)
        }
    }

    @Test func aTrickleFailsOneWindowAfterItsFirstByte() {
        var progress = TransferProgress(minimum: 100, window: 10)
        // Two bytes a second from second 3 on.
        var failedAt: Int?
        for half in 6...60 {
            let received = half - 5
            if !progress.isFastEnough(received: received, at: UInt64(half) * Self.second / 2) {
                failedAt = half
                break
            }
        }
        #expect(failedAt == 26)  // 13 s: 10 s after the first byte
        #expect(progress.receivedInWindow == 21)
    }

    @Test func aResponseThatSlowsDownFailsWhenTheLastWindowIsShort() {
        var progress = TransferProgress(minimum: 100, window: 10)
        var received = 0
        // 1000 bytes a second for 20 s, then 5 bytes a second.
        for tick in 0..<20 {
            received += 1000
            let fastEnough = progress.isFastEnough(received: received, at: UInt64(tick) * Self.second)
            #expect(fastEnough)
        }
        var failedAt: Int?
        for tick in 20..<60 {
            received += 5
            if !progress.isFastEnough(received: received, at: UInt64(tick) * Self.second) {
                failedAt = tick
                break
            }
        }
        #expect(failedAt == 29)
        #expect(progress.receivedInWindow == 50)
    }

    @Test func aMinimumOfZeroTurnsTheCheckOff() {
        var progress = TransferProgress(minimum: 0, window: 1)
        for tick in 0...100 {
            let fastEnough = progress.isFastEnough(received: 1, at: UInt64(tick) * Self.second)
            #expect(fastEnough)
        }
    }
}
