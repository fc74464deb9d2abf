import Foundation
import Synchronization
import WidgetCore
public import WidgetObjectStorage
import WidgetStages

extension BucketOutput {
    /// What a drain left: the keys still pending when its time ran out (empty when all were sent).
    public struct DrainResult: Sendable, Equatable {
        /// The keys the store has not acknowledged, sorted.
        public var unsent: [String]
        /// The last failure's message, when a request failed since the last success.
        public var lastError: String?

        /// Whether everything was sent.
        public var isComplete: Bool { unsent.isEmpty }

        /// A sentence for the log: `all objects written`, or how many were not and why.
        public var summary: String {
            if unsent.isEmpty { return "all objects written" }
            let shown = unsent.prefix(5).joined(separator: ", ") + (unsent.count > 5 ? ", …" : "")
            return "\(unsent.count) objects not written (\(shown))" + (lastError.map { ": \($0)" } ?? "")
        }
    }

    /// Sends the queue until the task is cancelled: the output's long-running work, to run beside the
    /// daemon (in its task group). Cancelling it cancels the requests in flight; their keys stay queued
    /// for ``drain(timeout:)`` or the next start.
    public func run() async {
        await pump(until: nil, stopWhenEmpty: false)
        saveManifest()
    }

    /// Sends what is queued until nothing is left or `timeout` seconds pass on the output's clock, for a
    /// graceful stop; works with or without ``run()`` running. Saves the manifest, so what stayed is sent
    /// by the next start.
    ///
    /// - Returns: What stayed unsent.
    @discardableResult
    public func drain(timeout: Double) async -> DrainResult {
        await pump(until: clock.now().addingTimeInterval(timeout), stopWhenEmpty: true)
        saveManifest()
        return queue.withLock { queue in
            let unsent = Set(queue.pending.keys).union(queue.inFlight.keys).sorted()
            let health = queue.currentHealth()
            return DrainResult(unsent: unsent, lastError: health.failuresInARow > 0 ? health.lastError : nil)
        }
    }

    /// Starts requests while the gate is open, slots are free and the pause is over, and waits for one to
    /// end, a write, or the end of the pause; stops at `deadline`, when cancelled, or (with
    /// `stopWhenEmpty`) when nothing is pending or in flight.
    private func pump(until deadline: Date?, stopWhenEmpty: Bool) async {
        await withTaskGroup(of: Bool.self) { group in
            var waiting = false
            while !Task.isCancelled {
                let generation = wake.generation
                let now = clock.now()
                if let deadline, now >= deadline { break }
                if stopWhenEmpty, queue.withLock({ $0.isEmpty }) { break }
                let open = mayWrite()
                while open, let job = queue.withLock({ $0.take(now: now, limit: settings.concurrentRequests) }) {
                    group.addTask {
                        await self.send(job.key, job.entry)
                        return true
                    }
                }
                if !waiting {
                    waiting = true
                    let resume: Date? = open ? queue.withLock { $0.pausedUntil } : now.addingTimeInterval(settings.gateCheckInterval)
                    let wakeAt = [deadline, resume.flatMap { $0 > now ? $0 : nil } as Date?].compactMap { $0 }.min()
                    group.addTask {
                        await self.waitForWork(after: generation, until: wakeAt)
                        return false
                    }
                }
                guard let sent = await group.next() else { break }
                if !sent { waiting = false }
            }
            group.cancelAll()
        }
    }

    /// Returns at the next write or finished request after `generation`, or at `deadline`.
    private func waitForWork(after generation: Int, until deadline: Date?) async {
        guard let deadline else { return await wake.wait(after: generation) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.clock.sleep(until: deadline) }
            group.addTask { await self.wake.wait(after: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Sends one entry and records how it ended.
    private func send(_ key: String, _ entry: BucketUploadQueue.Entry) async {
        let outcome: BucketUploadQueue.Outcome
        switch entry.change {
        case .put(let object):
            if let data = AtomicFile.contentsWithoutFollowingLinks(atPath: copyPath(key)) {
                let sha256 = SHA256.hexDigest(of: data)
                if queue.withLock({ $0.uploaded[key]?.sha256 == sha256 }) {
                    outcome = .unchanged
                } else {
                    do {
                        let upload = ObjectUpload(data: data, contentType: object.contentType, cacheControl: object.cacheControl)
                        let etag = try await store.put(prefix + key, upload, condition: .none)
                        outcome = .put(sha256: sha256, etag: etag, bytes: data.count)
                    } catch {
                        outcome = Task.isCancelled ? .cancelled : .failed(error)
                    }
                }
            } else {
                outcome = .vanished
            }
        case .delete:
            do {
                try await store.delete(prefix + key, condition: .none)
                outcome = .deleted
            } catch {
                outcome = Task.isCancelled ? .cancelled : .failed(error)
            }
        }
        let now = clock.now()
        let settings = settings
        let becameEmpty = queue.withLock { queue in
            queue.finished(key, entry, outcome, at: now) { error, failures in
                Self.retryDelay(after: error, failuresInARow: failures, settings)
            }
            return queue.isEmpty
        }
        if becameEmpty { saveManifest() }
        wake.signal()
    }

    /// How long sending pauses after `error`, the `failuresInARow`-th failure in a row: the store's
    /// `Retry-After` when it sent one; the cap after an answer no retry changes; otherwise full jitter,
    /// a random delay up to `firstRetryDelay × 2^(failuresInARow − 1)`, at most `maximumRetryDelay`.
    public static func retryDelay(after error: ObjectStoreError, failuresInARow: Int, _ settings: Settings) -> Double {
        if case .throttled(let retryAfter?) = error.kind { return min(max(0, retryAfter), 3600) }
        guard error.isTransient else { return settings.maximumRetryDelay }
        let ceiling = min(settings.maximumRetryDelay, settings.firstRetryDelay * pow(2, Double(min(max(0, failuresInARow - 1), 30))))
        return Double.random(in: 0...max(0, ceiling))
    }
}

/// Wakes the uploader's waiters: a counter of events (writes, finished requests) and the tasks waiting
/// for the next one.
final class WakeSignal: Sendable {
    private struct State {
        var generation = 0
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// The number of events so far; a waiter passes it to ``wait(after:)`` so none is missed.
    var generation: Int { state.withLock { $0.generation } }

    /// Records an event and wakes every waiter.
    func signal() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once an event after `generation` happened (at once if one has), or the task is cancelled.
    func wait(after generation: Int) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
