public import WidgetJSON

/// A stage whose options are valid but weaken something its author should keep seeing, such as an
/// `http` source with `"tls": {"verify": false}`.
///
/// `widgetd validate` prints each caution as a warning at the option it names, and every refresh of the
/// widget carries it among its warnings, so `widgetd status` and the gallery show it as long as the
/// option stays.
///
/// ```swift
/// extension HTTPFetcher: CautionedStage {
///     public var cautions: [StageCaution] {
///         tls?.verify == false ? [StageCaution(option: ValuePath.root.appending("tls").appending("verify"), message: "…")] : []
///     }
/// }
/// ```
public protocol CautionedStage: Stage {
    /// What the options weaken, each at its option; empty when nothing.
    var cautions: [StageCaution] { get }
}

/// One caution of a ``CautionedStage``: the option, and one sentence with what it weakens and a fix.
public struct StageCaution: Sendable, Hashable {
    /// Where the option is, relative to the stage: `$.tls.verify`.
    public var option: ValuePath
    /// What it weakens and what would be better: `reads the server without verifying its certificate; …`.
    public var message: String

    /// A caution about `option`.
    public init(option: ValuePath, message: String) {
        self.option = option
        self.message = message
    }
}
