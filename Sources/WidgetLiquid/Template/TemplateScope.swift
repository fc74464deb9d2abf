public import Foundation
public import WidgetJSON

/// The variables a ``Template`` is rendered with, plus the clock and time zone for dates.
///
/// Root names are looked up first in ``globals`` (`inputs`, `now`, `widget`, `params`, `env`, …), then among
/// the members of ``item`` when it is an object; `item` itself is a root name too. A name found nowhere is
/// `nil`, which renders as nothing.
///
/// ```swift
/// let scope = TemplateScope(globals: ["params": ["host": "nas.local"]], item: ["title": "Hello"])
/// try Template("{{ title }} from {{ params.host }}").renderString(scope) // "Hello from nas.local"
/// ```
public struct TemplateScope: Sendable {
    /// Named root variables; they win over members of ``item`` with the same name.
    public var globals: WidgetObject
    /// The item being transformed, whose members are root variables too; `nil` when there is none.
    public var item: WidgetValue?
    /// The moment `'now'` and `'today'` stand for in the `date` filter.
    public var now: Date
    /// The time zone the `date` filter shows dates in and reads zone-less dates in.
    public var timeZone: TimeZone
    /// The bytes all templates rendered with this scope (and its copies) may produce together; `nil` limits
    /// only each text, to ``RenderBudget/maximumTextBytes``.
    public var budget: RenderBudget?
    /// The steps all templates rendered with this scope (and its copies) may take together (see
    /// ``TemplateSteps``); `nil` counts none.
    public var steps: TemplateSteps?
    /// Where `{% render %}` and `{% include %}` find partials; `nil` when there are none.
    public var partials: (any TemplatePartials)?
    /// Whether a variable or member that does not exist is an error rather than `nil`.
    ///
    /// Reading it is allowed where the template guards it: in a condition (`{% if item.subtitle %}`,
    /// `unless`, `case`, `when`), when the output's first filter is `default`
    /// (`{{ item.subtitle | default: '' }}`), and in templates used as tests (``Template/test(_:)``). A member
    /// that exists and holds `null` is not missing. Definitions render with this on; Liquid's own behaviour
    /// (off) renders a missing value as nothing.
    public var strictVariables = false
    /// Whether every `{{ … }}` is HTML-escaped as it is shown, for templates that write HTML: a value is
    /// shown as text unless the tag's last filter is `safe`. A template that is one tag then renders text
    /// too, never a typed value.
    public var escapesHTML = false

    /// Creates a scope; by default empty, at the current time, in UTC.
    public init(
        globals: WidgetObject = [:],
        item: WidgetValue? = nil,
        now: Date = Date(),
        timeZone: TimeZone = TimeZone(identifier: "UTC")!
    ) {
        self.globals = globals
        self.item = item
        self.now = now
        self.timeZone = timeZone
    }

    /// The value of a root variable, or `.null`.
    func lookup(_ name: String) -> WidgetValue {
        find(name) ?? .null
    }

    /// The value of a root variable, or `nil` when there is none of that name.
    func find(_ name: String) -> WidgetValue? {
        if let value = globals[name] { return value }
        if let item {
            if case .object(let object) = item, let value = object[name] { return value }
            if name == "item" { return item }
        }
        return nil
    }

    /// Every root name in scope, for "did you mean" hints.
    var names: [String] {
        var names = Array(globals.keys)
        if let item {
            names.append("item")
            if case .object(let object) = item { names += object.keys }
        }
        return names
    }
}
