public import WidgetJSON

extension WidgetDefinition {
    /// The limits of the widget's snapshot and gallery page (`ValueLimits`), scaled from its source's
    /// `maxBytes` (the option of the HTTP and file sources; the default cap when the source sets none).
    public var valueLimits: ValueLimits {
        ValueLimits(bodyCap: source.options["maxBytes"]?.number?.int)
    }
}
