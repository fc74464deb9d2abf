import Synchronization

/// A counting semaphore per host: at most `limit` holders per key, the others wait in FIFO order.
///
/// Waiting is cancellation-safe: a waiter whose task is cancelled leaves the queue at once and
/// ``acquire(_:)`` returns `false`. Hosts without holders or waiters take no memory.
final class HostLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct Host {
        var holders = 0
        var waiters: [Waiter] = []
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var nextID: UInt64 = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a slot for `key`; `false` when the task was cancelled first (no slot is held then).
    func acquire(_ key: String) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let granted: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    var host = state.hosts[key, default: Host()]
                    defer { state.hosts[key] = host }
                    if host.holders < limit, host.waiters.isEmpty {
                        host.holders += 1
                        return true
                    }
                    host.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard var host = state.hosts[key],
                    let index = host.waiters.firstIndex(where: { $0.id == id })
                else { return nil }
                let waiter = host.waiters.remove(at: index)
                state.hosts[key] = host.holders == 0 && host.waiters.isEmpty ? nil : host
                return waiter
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives back a slot taken by a successful ``acquire(_:)``; the longest waiter gets it.
    func release(_ key: String) {
        let next: Waiter? = state.withLock { state in
            guard var host = state.hosts[key] else { return nil }
            if !host.waiters.isEmpty {
                let waiter = host.waiters.removeFirst()
                state.hosts[key] = host
                return waiter
            }
            host.holders -= 1
            state.hosts[key] = host.holders <= 0 ? nil : host
            return nil
        }
        next?.continuation.resume(returning: true)
    }

    /// How many slots `key` has in use (for tests).
    func holders(_ key: String) -> Int {
        state.withLock { $0.hosts[key]?.holders ?? 0 }
    }
}
