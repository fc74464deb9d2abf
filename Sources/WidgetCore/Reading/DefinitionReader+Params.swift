import WidgetJSON
import WidgetLiquid

// MARK: - Instance parameters

extension DefinitionReader.Session {
    /// Reports a template at `path` that reads `params` where nothing gives them: a definition without
    /// `instances` (its `params` are always empty), or an instance whose `params` lack a name the template
    /// reads on every render (see `Template.requiredMembers(of:)`). Each such refresh would fail.
    ///
    /// Titles and placeholders are left to ``renderDisplay(_:instance:)``, which renders them for each
    /// instance, and the instances' own values to theirs.
    ///
    /// - Parameter instances: each instance's id, index in `instances` and `params`; one without an id for
    ///   a definition without instances.
    mutating func checkParams(in template: Template, at path: ValuePath, instances: [(id: String?, index: Int, params: WidgetObject)]) {
        guard template.freeVariables.contains("params") else { return }
        if case .key(let first)? = path.components.first, ["title", "placeholder", "instances"].contains(first) { return }
        let required = template.requiredMembers(of: "params").sorted()
        guard instances.contains(where: { $0.id != nil }) else {
            let name = required.first ?? template.members(of: "params").sorted().first
            let read = name.map { "params.\($0)" } ?? "params"
            let example = "{\"id\": \"home\", \"params\": {\"\(name ?? "city")\": …}}"
            report(
                path,
                "the template reads \(read), but this definition has no \"instances\" to give params, so it is always empty; "
                    + "add \"instances\": [\(example)], or write the value in place of \(read)")
            return
        }
        for name in required {
            for instance in instances where instance.params[name] == nil {
                guard let id = instance.id else { continue }
                // An instance with a problem of its own (a misspelt "params", say) is reported for that alone.
                let owner = ValuePath.root.appending("instances").appending(index: instance.index)
                if diagnostics.contains(where: { $0.path?.components.starts(with: owner.components) == true }) { continue }
                let place = owner.appending("params")
                report(
                    path,
                    "the template reads params.\(name), which the instance \"\(id)\" does not set (\(place)); add \"\(name)\" to its \"params\", "
                        + "or read it as {{ params.\(name) | default: … }}")
            }
        }
    }
}
