import Dispatch
public import Foundation
import Synchronization
public import WidgetCore
import WidgetJSON
public import WidgetStages

/// Delivers the notifications the widgets' rules made: drains a `NotificationQueue` beside the
/// refreshes, never on their places, and reports what became of each one.
///
/// Each notification is sent as its rule's webhook says: the address and the headers are rendered when
/// it is sent (they may read `env` and `secret`, and see `widget`, `params` and `notification`, its `id`
/// and `rule`), the body is the one rendered when the rule fired. Every request carries
/// `Idempotency-Key: <id>`, so that a receiver can drop a repeat, and the body's `Content-Type`.
///
/// - A 2xx answer delivers it: it leaves the outbox.
/// - A 408, a 429, a 5xx, or no answer at all (the connection refused, the 10 s deadline passed) is
///   tried again after an exponential backoff with full jitter — a random delay up to 30 s, then up to
///   1 min, 2 min, … at most 1 h — or after the server's `Retry-After` when that is later.
/// - Any other answer (a 4xx: a bad token, a webhook deleted; a redirect not followed) says the request
///   itself is wrong: it is tried again only hourly, in case the definition or the secret is fixed.
/// - A notification not delivered 24 hours after its rule fired is given up, and counted as failed.
/// - After a transient failure of a target (its scheme, host and port), the same pass tries none of that
///   target's other notifications: they wait for the same retry time (the target's `Retry-After` included),
///   postponed with no attempt counted.
/// - A notification whose rule is gone from its loaded widget (removed by a reload) is dropped; one of a
///   widget not loaded (its definition broken, say) waits, untouched, until the widget is loaded again.
///
/// At most ``maximumInFlight`` requests are in flight; the sender waits for a notification to be queued
/// (``wake()``) or for the next attempt due, on the daemon's clock, so a test moves it with a manual clock.
///
/// ```swift
/// let sender = NotificationSender(queue: store.notifications, secrets: secrets, clock: clock)
/// sender.update(definitions: ["shop": shop])
/// try await sender.run()   // until the task is cancelled
/// ```
public final class NotificationSender: Sendable {
    /// What one attempt at a notification came to.
    public enum Outcome: Sendable, Equatable {
        /// A 2xx answer.
        case delivered
        /// Not delivered; tried again at `retryAt`, or given up when it is `nil`.
        case failed(error: String, retryAt: Date?)
        /// Its rule no longer exists in its loaded widget.
        case dropped(reason: String)
        /// Its widget is not loaded: it stays pending, untouched.
        case skipped
        /// Not attempted: its receiver failed earlier in the same pass. It waits until `until`, the
        /// receiver's retry time, with no attempt counted.
        case postponed(until: Date)
    }

    /// The most requests in flight at once.
    public static let maximumInFlight = 4
    /// How long one request may take, answer included.
    public static let requestTimeout: TimeInterval = 10
    /// The most bytes read of an answer: receivers answer with a few bytes, which are not kept.
    public static let maximumAnswerBytes = 256 * 1024
    /// The backoff's first ceiling, in seconds; it doubles with each failed attempt.
    public static let firstRetryDelay: Double = 30
    /// The backoff's last ceiling, in seconds, and the delay after an answer that retrying will not fix.
    public static let longestRetryDelay: Double = 3600
    /// How long one pass of ``run()`` starts new attempts; what is left is attempted by the next pass,
    /// together with what was queued meanwhile.
    public static let passLimit: Duration = .seconds(60)
    /// How long after its rule fired a notification is given up, in seconds.
    public static let givingUpAfter: Double = 24 * 3600

    private let queue: any NotificationQueue
    private let secrets: SecretStore
    private let clock: any WidgetClock
    private let client: HTTPClient
    private let log: @Sendable (LogRecord) -> Void
    private let random: @Sendable () -> Double
    /// Whether a widget's notifications are this sender's; `nil` for every widget's.
    private let owns: (@Sendable (String) -> Bool)?
    /// The definitions of the widgets loaded, by id (see `update(definitions:)`).
    private let definitions = Mutex<@Sendable (String) -> WidgetDefinition?>({ _ in nil })
    private let wakeup = SenderWakeup()

    /// The threads the queue is read and updated on: its outboxes are read from and saved (flushed) to
    /// the output, which blocks a thread for as long as the disk takes, and the cooperative pool's few
    /// threads must not wait for disks.
    private static let queueThreads = DispatchQueue(label: "widgetd.notify", attributes: .concurrent)

    /// `body`'s result, run on ``queueThreads``.
    private func onQueueThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Self.queueThreads.async { continuation.resume(returning: body()) }
        }
    }

    /// A sender that drains `queue`.
    ///
    /// - Parameters:
    ///   - queue: Where the notifications wait, and where what became of them is reported.
    ///   - secrets: What `env.NAME` and `secret.NAME` read in addresses and headers.
    ///   - clock: The daemon's clock: retries are due on it.
    ///   - client: The client requests go through; by default one of the sender's own, so that a slow
    ///     target never holds a place a fetch needs.
    ///   - log: Where `notify-sent`, `notify-failed` and `notify-dropped` lines go.
    ///   - random: A number in `0..<1` for the backoff's jitter.
    ///   - owns: Whether the notifications of a widget are this sender's: with several daemons sharing one
    ///     output (`run --shard`), each sends its own widgets' only, and leaves the others' alone; `nil`
    ///     for every widget's.
    public init(
        queue: any NotificationQueue, secrets: SecretStore, clock: any WidgetClock,
        client: HTTPClient = HTTPClient(maximumConnectionsPerHost: NotificationSender.maximumInFlight),
        log: @escaping @Sendable (LogRecord) -> Void = { _ in }, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        owns: (@Sendable (String) -> Bool)? = nil
    ) {
        self.queue = queue
        self.secrets = secrets
        self.clock = clock
        self.client = client
        self.log = log
        self.random = random
        self.owns = owns
    }

    /// Replaces the widgets the sender knows, by id: the daemon's after each load of the definitions. A
    /// notification finds its webhook in its widget's `notify` rules, by the rule's name.
    public func update(definitions: [String: WidgetDefinition]) {
        update { definitions[$0] }
    }

    /// Replaces the widgets the sender knows with those `definition` gives by id (`nil`: not loaded).
    ///
    /// The daemon passes a look-up into the table it keeps anyway (`{ widgets[$0]?.definition }`): the
    /// sender then holds no copy of a thousand definitions, inline in a table of its own (~1.7 KB a widget).
    public func update(definitions definition: @escaping @Sendable (String) -> WidgetDefinition?) {
        self.definitions.withLock { $0 = definition }
    }

    /// The definition of the loaded widget `id`, or `nil` when it is not loaded.
    private func definition(of id: String) -> WidgetDefinition? {
        definitions.withLock { $0 }(id)
    }

    /// Logs a `notify-dropped` line for each rule of `widget` whose waiting notifications were dropped
    /// unsent because its outbox was full: `counts` by rule name.
    public func reportDropped(widget: String, counts: [String: Int]) {
        for rule in counts.keys.sorted() {
            let count = counts[rule] ?? 0
            let reason = "the outbox was full (\(NotificationOutbox.maximumPending) waiting)"
            log(
                LogRecord(
                    .warning, "notify-dropped", "\(widget): \(count) notification(s) of \(rule) dropped unsent: \(reason)",
                    widget: widget, error: reason, details: ["rule": .string(rule), "count": .number(WidgetNumber(count))]))
        }
    }

    /// Tells the sender that a notification was queued: it sends at once rather than at its next retry.
    public func wake() {
        wakeup.raise()
    }

    // MARK: - Running

    /// Sends what is due, then waits for more, until the calling task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            // A bounded pass: a notification queued meanwhile (its wake kept) waits for at most one.
            let attempted = await sendDue(within: Self.passLimit)
            guard !Task.isCancelled else { return }
            // No connection stays open between passes, which come minutes or hours apart.
            if attempted > 0 { client.closeIdleConnections() }
            var next = await onQueueThread { self.nextAttempt() }
            // A queue that says something is due but gives nothing waits a second rather than spin.
            if attempted == 0, let due = next, due <= clock.now() { next = clock.now().addingTimeInterval(1) }
            await wakeup.wait(until: next, clock: clock)
        }
    }

    /// The earliest next attempt of this sender's notifications: those of its loaded widgets.
    func nextAttempt() -> Date? {
        queue.due(at: .distantFuture).filter(isMine).map { $0.nextAttemptAt ?? $0.createdAt }.min()
    }

    /// Whether `notification` is this sender's to send now: its widget is loaded (and, with several
    /// shards, its own).
    private func isMine(_ notification: PendingNotification) -> Bool {
        guard owns?(notification.widget) ?? true else { return false }
        return definition(of: notification.widget) != nil
    }

    /// Attempts every notification due now, at most ``maximumInFlight`` at a time, and returns how many
    /// it attempted (dropped ones included) once every attempt has ended.
    ///
    /// - Parameter limit: How long the pass may start new attempts, in real time; what is left after it
    ///   stays queued. An attempt started ends within ``requestTimeout``. `nil` for no limit.
    @discardableResult
    public func sendDue(within limit: Duration? = nil) async -> Int {
        let now = clock.now()
        let due = await onQueueThread { self.queue.due(at: now).filter(self.isMine) }
        guard !due.isEmpty else { return 0 }
        let deadline = limit.map { ContinuousClock.now.advanced(by: $0) }
        let pass = Pass()
        var attempted = 0
        await withTaskGroup(of: Void.self) { group in
            var waiting = due[...]
            var inFlight = 0
            while let notification = waiting.popFirst() {
                if inFlight == Self.maximumInFlight {
                    await group.next()
                    inFlight -= 1
                }
                guard !Task.isCancelled else { break }
                if let deadline, ContinuousClock.now >= deadline { break }
                group.addTask { await self.attempt(notification, pass: pass) }
                inFlight += 1
                attempted += 1
            }
            await group.waitForAll()
        }
        return attempted
    }

    /// What one pass learnt of its targets: those that failed transiently, with when to try them again.
    final class Pass: Sendable {
        let blocked = Mutex<[String: Date]>([:])
    }

    /// Sends `notification` once, reports the outcome to the queue and logs it.
    @discardableResult
    public func attempt(_ notification: PendingNotification) async -> Outcome {
        await attempt(notification, pass: Pass())
    }

    /// Sends `notification` once within `pass`, reports the outcome to the queue and logs it.
    func attempt(_ notification: PendingNotification, pass: Pass) async -> Outcome {
        let outcome = await send(notification, pass: pass)
        let now = clock.now()
        let details: WidgetObject = [
            "id": .string(notification.id), "rule": .string(notification.rule),
            "attempts": .number(WidgetNumber(notification.attempts + 1)),
        ]
        switch outcome {
        case .delivered:
            await onQueueThread { self.queue.delivered(notification, at: now) }
            log(
                LogRecord(
                    .info, "notify-sent", "\(notification.widget): notification \(notification.rule) sent (\(notification.reason))",
                    widget: notification.widget, details: details))
        case .failed(let error, let retryAt):
            // A cancelled attempt (the daemon stopping) is no failure: it stays as it was, due again.
            if Task.isCancelled { return outcome }
            await onQueueThread { self.queue.failed(notification, error: error, retryAt: retryAt, at: now) }
            let then = retryAt.map { "; next attempt at \(Timestamp.string($0))" } ?? "; given up after 24 h"
            log(
                LogRecord(
                    retryAt == nil ? .error : .warning, "notify-failed",
                    "\(notification.widget): notification \(notification.rule) not delivered: \(error)\(then)",
                    widget: notification.widget, next: retryAt, error: error, details: details))
        case .skipped:
            break
        case .postponed(let until):
            if Task.isCancelled { return outcome }
            await onQueueThread { self.queue.postponed(notification, until: until, at: now) }
            log(
                LogRecord(
                    .debug, "notify-postponed",
                    "\(notification.widget): notification \(notification.rule) waits for its receiver's retry",
                    widget: notification.widget, next: until, details: details))
        case .dropped(let reason):
            await onQueueThread { self.queue.dropped(notification, reason: reason, at: now) }
            log(
                LogRecord(
                    .warning, "notify-dropped", "\(notification.widget): notification \(notification.rule) dropped: \(reason)",
                    widget: notification.widget, error: reason, details: details))
        }
        return outcome
    }

    /// Sends `notification` and says what came of it, reporting nothing: not at all when its target
    /// failed transiently earlier in `pass` (it waits for the same retry time then).
    func send(_ notification: PendingNotification, pass: Pass = Pass()) async -> Outcome {
        // A widget not loaded (its definition broken at start, say) keeps its notifications for later.
        guard let definition = definition(of: notification.widget) else { return .skipped }
        guard let rule = definition.notify.first(where: { $0.name == notification.rule }) else {
            return .dropped(reason: "its rule \(notification.rule) no longer exists in \(definition.file)")
        }
        let mask = definition.secretMask(secrets: secrets)
        let request: HTTPRequest
        do {
            request = try makeRequest(notification, rule: rule, definition: definition)
        } catch {
            // The definition or a secret may be fixed meanwhile: tried again like an answer that says so.
            return failure(mask.apply("\(error)"), of: notification, permanent: true, retryAfter: nil)
        }
        let host = mask.apply(request.hostDescription)
        let target = Self.target(of: request.url)
        if let retryAt = pass.blocked.withLock({ $0[target] }) {
            return .postponed(until: retryAt)
        }
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            return blocking(target, in: pass, failure(mask.apply("\(error)"), of: notification, permanent: false, retryAfter: nil))
        }
        if response.isSuccess { return .delivered }
        let transient = response.status == 408 || response.status == 429 || response.status >= 500
        let outcome = failure(
            "\(host) answered \(response.status)", of: notification, permanent: !transient,
            retryAfter: response.retryAfter(now: clock.now()))
        return transient ? blocking(target, in: pass, outcome) : outcome
    }

    /// `outcome`, after noting in `pass` that `target` is not to be tried again before its retry time.
    private func blocking(_ target: String, in pass: Pass, _ outcome: Outcome) -> Outcome {
        if case .failed(_, let retryAt?) = outcome {
            pass.blocked.withLock { blocked in blocked[target] = max(blocked[target] ?? retryAt, retryAt) }
        }
        return outcome
    }

    /// `scheme://host:port` of `url`: the target whose failures hold back its other notifications.
    static func target(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// The failure of an attempt at `notification`, with when to try again.
    private func failure(_ error: String, of notification: PendingNotification, permanent: Bool, retryAfter: Double?) -> Outcome {
        let now = clock.now()
        var delay =
            permanent ? Self.longestRetryDelay : Self.retryDelay(afterFailedAttempts: notification.attempts + 1, random: random())
        if let retryAfter { delay = max(delay, retryAfter) }
        let retryAt = now.addingTimeInterval(delay)
        let givingUp = notification.createdAt.addingTimeInterval(Self.givingUpAfter)
        return .failed(error: error, retryAt: retryAt > givingUp ? nil : retryAt)
    }

    /// The backoff after `failures` failed attempts (1 for the first), in seconds: a random share
    /// (`random`, in `0..<1`) of 30 s, 1 min, 2 min, … at most 1 h — but never under a second.
    ///
    /// ```swift
    /// NotificationSender.retryDelay(afterFailedAttempts: 1, random: 0.5)   // 15
    /// NotificationSender.retryDelay(afterFailedAttempts: 20, random: 0.5)  // 1800
    /// ```
    public static func retryDelay(afterFailedAttempts failures: Int, random: Double) -> Double {
        let doublings = Double(min(max(failures, 1) - 1, 16))
        let ceiling = min(firstRetryDelay * pow(2, doublings), longestRetryDelay)
        return max(1, ceiling * min(max(random, 0), 1))
    }

    // MARK: - The request

    /// The request for `notification`: `rule`'s address and headers rendered with the secrets (see
    /// `NotificationRequest`; a header that reads a secret never follows a redirect to another origin),
    /// its body and content type, and its id as `Idempotency-Key`.
    ///
    /// - Throws: A message when a template fails or the address is not http(s).
    func makeRequest(_ notification: PendingNotification, rule: NotifyRule, definition: WidgetDefinition) throws -> HTTPRequest {
        let rendered: NotificationRequest
        do {
            rendered = try NotificationRequest(notification, rule: rule, definition: definition, secrets: secrets)
        } catch {
            throw NotificationError(message: "a template of the webhook failed: \(error)")
        }
        let text = rendered.url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw NotificationError(message: "the url template did not give an http or https URL; check the values it reads")
        }
        var request = HTTPRequest(
            url: url, method: rendered.method, body: Data(rendered.body.utf8), timeout: Self.requestTimeout,
            connectTimeout: Self.requestTimeout, maxBytes: Self.maximumAnswerBytes)
        request.headers = rendered.headers
        request.headers.replaceOrAdd(name: "Idempotency-Key", value: notification.id)
        return request
    }
}

/// Why a notification's request could not be made.
struct NotificationError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
