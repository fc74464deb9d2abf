import WidgetJSON

/// Something a refresh that succeeded still has to say: a stage that left nothing of a value that had
/// something — a `filter` that keeps no item, a `select` whose path matches nothing — or a timeline with
/// no entries.
///
/// The refresh stays `fresh` (an empty list may be the truth: no alerts today), but the snapshot's
/// `warnings`, `widgetd status` and `widgetd preview ID --trace` say which stage emptied the value and
/// what it was given, so an author who mistyped a path is not left with a blank widget and no word why.
///
/// ```
/// transforms[1] (filter): gave an empty list from a list of 12 items; see each stage's value with 'widgetd preview news --trace'
/// ```
public struct PipelineWarning: Sendable, Hashable, CustomStringConvertible {
    /// The stage the warning is about, as errors name it: `transforms[1] (filter)`, `timeline`.
    public var stage: PipelineStage
    /// What happened, without the stage: `gave an empty list from a list of 12 items`.
    public var message: String
    /// The id of the widget, for the hint that ends ``description``.
    public var widget: String
    /// Whether the warning is a ``StageCaution`` of the stage's options: its message carries its own fix,
    /// and ``description`` adds no hint.
    public var isCaution: Bool

    /// A warning about `stage` of the widget `widget`.
    public init(stage: PipelineStage, message: String, widget: String, isCaution: Bool = false) {
        self.stage = stage
        self.message = message
        self.widget = widget
        self.isCaution = isCaution
    }

    /// The stage, the message and where to look:
    /// `transforms[1] (filter): gave an empty list from a list of 12 items; see each stage's value with 'widgetd preview news --trace'`;
    /// a caution's stage and message alone.
    public var description: String {
        if isCaution { return "\(stage): \(message)" }
        return "\(stage): \(message); see each stage's value with 'widgetd preview \(widget) --trace'"
    }

    /// The warning for a stage that turned `input`, which held something, into `output`, which holds
    /// nothing (`null`, `[]` or `{}`); nil when it did not.
    static func emptied(_ input: WidgetValue, into output: WidgetValue, by stage: PipelineStage, widget: String) -> PipelineWarning? {
        guard output.isEmptyResult, !input.isEmptyResult else { return nil }
        return PipelineWarning(stage: stage, message: "gave \(output.shapeDescription) from \(input.shapeDescription)", widget: widget)
    }

    /// The warning for a timeline that gave no entries from `input`, when no stage before it was warned
    /// about; `emptiedBy` is the stage that made the input empty (the parser), nil when none did.
    static func noEntries(from input: WidgetValue, emptiedBy: PipelineStage?, widget: String) -> PipelineWarning {
        let cause: String
        if let emptiedBy, input.isEmptyResult {
            cause = ": \(emptiedBy) gave \(input.shapeDescription)"
        } else {
            cause = " from \(input.shapeDescription)"
        }
        return PipelineWarning(stage: .timeline, message: "gave no entries\(cause)", widget: widget)
    }
}
