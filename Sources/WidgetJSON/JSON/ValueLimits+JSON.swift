extension ValueLimits {
    /// The message for `what` passing `limit`, at `location` when known.
    public func message(for limit: JSONSyntaxError.Limit, what: String, at location: SourceLocation? = nil) -> String {
        switch limit {
        case .depth:
            let place = location.map { " (line \($0.line), column \($0.column))" } ?? ""
            return Self.tooDeepMessage(what + place)
        case .values:
            return tooManyValuesMessage(what)
        }
    }
}
