public import Foundation
public import WidgetCore

/// Why a refresh failed or was not run: a stage of the pipeline failed, the daily budget was used up,
/// the refresh was stopped at its deadline, or it was cancelled.
///
/// Its description is what snapshots, logs and `status` show: a failed stage's as the stage words it
/// (`source: the server answered 503`), the others under the step that stopped the refresh
/// (`schedule: the daily budget of 24 refreshes is used up; …`, `refresh: stopped at its 1m deadline; …`).
public enum RefreshFailure: Error, Sendable, CustomStringConvertible {
    /// A stage of the pipeline failed (or was cancelled inside it).
    case stage(PipelineError)
    /// Not run: the widget's daily budget of `limit` refreshes (`maxPerDay`) is used up until `next`.
    case budgetUsedUp(limit: Int, next: Date)
    /// Stopped at the refresh's `deadline`, which was `deadline` long.
    case deadline(WidgetDuration)
    /// Stopped because the refresh's task was cancelled before its stages were.
    case cancelled

    /// The failed stage's error, when a stage failed.
    public var stageError: PipelineError? {
        if case .stage(let error) = self { return error }
        return nil
    }

    /// The step the description names: the failed stage's name, `schedule` for the budget, `refresh` for
    /// the deadline and a cancellation.
    var step: String {
        switch self {
        case .stage(let error): "\(error.stage)"
        case .budgetUsedUp: "schedule"
        case .deadline, .cancelled: "refresh"
        }
    }

    /// The failure's own message, without the step's name.
    public var message: String {
        get {
            switch self {
            case .stage(let error):
                error.message
            case .budgetUsedUp(let limit, let next):
                "the daily budget of \(limit) refreshes is used up; the next refresh waits until \(Timestamp.string(next))"
            case .deadline(let deadline):
                "stopped at its \(deadline) deadline; the last good data stays (set \"deadline\" in the definition to allow longer)"
            case .cancelled:
                "the refresh was cancelled"
            }
        }
        set {
            // Only a stage's message comes from outside (a source, a template); the others are ours.
            if case .stage(var error) = self {
                error.message = newValue
                self = .stage(error)
            }
        }
    }

    /// How long the source asked to wait, when a failed stage's source did.
    public var retryAfter: Double? { stageError?.retryAfter }

    /// Whether the refresh was cancelled rather than failed.
    public var isCancellation: Bool {
        switch self {
        case .stage(let error): error.isCancellation
        case .cancelled: true
        case .budgetUsedUp, .deadline: false
        }
    }

    /// When a template of a failed stage failed: where it is in the definition and the column inside it.
    public var template: StageError.TemplatePlace? { stageError?.template }

    /// The place of a failed stage's template in the definition file, `file:line:column`, once found;
    /// the description then names it. Only a stage's failure has one.
    public var location: String? {
        get { stageError?.location }
        set {
            if case .stage(var error) = self {
                error.location = newValue
                self = .stage(error)
            }
        }
    }

    /// What the daemon's metrics count the failure under (`widgetd_refresh_failures_total`'s `stage`): the
    /// failed stage's kind (`source`, `parser`, …), `schedule` for the budget, `deadline` for the
    /// deadline and a cancellation.
    var metricsLabel: String {
        switch self {
        case .stage(let error): error.kind.rawValue
        case .budgetUsedUp: "schedule"
        case .deadline, .cancelled: "deadline"
        }
    }

    public var description: String {
        if case .stage(let error) = self { return error.description }
        return "\(step): \(message)"
    }
}
