import Synchronization
import WidgetJSON

/// Templates compiled once for a whole load of a folder of definitions, shared by the ``TemplateCache``
/// of every file: files written from one pattern repeat most of their templates (`{{ title }}`, a card's
/// fields), and each text is then parsed once for the folder instead of once per file. The widgets'
/// stages then hold one copy of each such template too. Safe to use from several threads.
///
/// A library lives as long as the load that made it (see `DefinitionReader.sharingTemplates()`), so
/// that a daemon reloading its definitions keeps no templates it no longer uses.
package final class TemplateLibrary: Sendable {
    /// The filters every template of the library is compiled with: the reader's.
    let filters: FilterRegistry
    private let compiled = Mutex<[String: Result<Template, ExpressionError>]>([:])
    /// The JSONPaths of stage options, parsed once for the load likewise (`$.items`, a sort key).
    private let paths = Mutex<[String: Result<JSONPath, ExpressionError>]>([:])

    /// An empty library that compiles templates with `filters`.
    package init(filters: FilterRegistry) {
        self.filters = filters
    }

    /// The template of `text`, or why it is not one: compiled the first time any file asks for it.
    func compile(_ text: String) -> Result<Template, ExpressionError> {
        if let known = compiled.withLock({ $0[text] }) { return known }
        // Compiled outside the lock: two files asking at once compile the same text to the same result.
        let result = Result { () throws(ExpressionError) in try Template(text, filters: filters) }
        compiled.withLock { $0[text] = result }
        return result
    }

    /// The JSONPath of `text`, or why it is not one: parsed the first time any file asks for it.
    func jsonPath(_ text: String) -> Result<JSONPath, ExpressionError> {
        if let known = paths.withLock({ $0[text] }) { return known }
        let result = Result { () throws(ExpressionError) in try JSONPath(text) }
        paths.withLock { $0[text] = result }
        return result
    }
}
