import WidgetJSON

// MARK: - Schedules and the daily budget

extension DefinitionReader.Session {
    /// Warns when the widget's schedule fires more often in a day than its `maxPerDay` allows (see
    /// ``Schedule/budgetProblem``): the widget runs, but stops refreshing each day once the budget is spent.
    ///
    /// - Parameter schedulePath: where the schedule is written (`$.schedule`, or an instance's);
    ///   `nil` when the widget has the default schedule, which fits the default budget.
    mutating func checkBudget(_ definition: WidgetDefinition, schedulePath: ValuePath?) {
        guard let schedulePath, let problem = definition.schedule.budgetProblem else { return }
        let rule =
            switch definition.schedule.rule {
            case .every: "every"
            case .at: "at"
            case .cron: "cron"
            case .atEnd, .never: ""
            }
        warn(rule.isEmpty ? schedulePath : schedulePath.appending(rule), problem)
    }
}
