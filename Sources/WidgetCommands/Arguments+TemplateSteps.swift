import WidgetCore

extension Arguments {
    /// `--template-steps N`: the steps templates may take (see `TemplateSteps`), when given.
    ///
    /// - Throws: ``UsageError`` for a value that is not a whole number above 0.
    public mutating func templateStepLimit() throws(UsageError) -> Int? {
        guard let text = try option("--template-steps") else { return nil }
        guard let limit = Int(text), limit > 0 else {
            throw UsageError("--template-steps takes a whole number of steps above 0, e.g. 50000000, not '\(text)'")
        }
        return limit
    }
}

extension CommandEnvironment {
    /// This environment with templates allowed `limit` steps (`--template-steps`), or as it is when `nil`.
    public func limitingTemplateSteps(to limit: Int?) -> CommandEnvironment {
        guard let limit else { return self }
        var copy = self
        copy.templateStepLimit = limit
        return copy
    }
}
