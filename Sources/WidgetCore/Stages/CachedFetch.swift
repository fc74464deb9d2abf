public import WidgetJSON

/// A fetch's validators (with the request they belong to and the parser that read the payload) and the
/// value it parsed to.
public struct CachedFetch: Sendable, Hashable {
    /// The validators to send with the next request, with the request and parser they belong to.
    public var validators: FetchValidators
    /// The value the payload parsed to, reused when the source answers "not modified".
    public var value: WidgetValue

    /// Creates a cache entry from its validators and parsed value.
    public init(validators: FetchValidators, value: WidgetValue) {
        self.validators = validators
        self.value = value
    }
}
