public import WidgetCore

/// URL prefixes that HTTP sources send elsewhere: `widgetd run --rewrite-origin https://api.example.com=http://127.0.0.1:8080`.
///
/// For testing a definition unchanged against a local server with recorded payloads, or for pointing every
/// widget at a caching proxy. A URL that starts with a `from` prefix has it replaced by `to`; the first
/// matching rule wins.
public struct OriginRewrites: Sendable, Hashable {
    /// One rewrite: URLs that start with ``from`` have that prefix replaced by ``to``.
    public struct Rule: Sendable, Hashable {
        /// The prefix to match, compared as written (`https://api.example.com`).
        public var from: String
        /// The prefix that replaces it (`http://127.0.0.1:8080`).
        public var to: String

        /// A rule that sends URLs starting with `from` to `to`.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The rules, in the order they are tried.
    public var rules: [Rule]

    /// Rewrites with `rules`, tried in order.
    public init(rules: [Rule]) {
        self.rules = rules
    }

    /// Parses `FROM=TO` arguments.
    ///
    /// - Throws: `StageError` naming an argument without `=` or with an empty side.
    public init(arguments: [String]) throws(StageError) {
        var rules: [Rule] = []
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex,
                argument.index(after: equals) != argument.endIndex
            else {
                throw StageError("--rewrite-origin takes FROM=TO, e.g. https://api.example.com=http://127.0.0.1:8080, not '\(argument)'")
            }
            rules.append(Rule(from: String(argument[..<equals]), to: String(argument[argument.index(after: equals)...])))
        }
        self.rules = rules
    }

    /// `url` with the first matching prefix replaced.
    public func apply(to url: String) -> String {
        for rule in rules where url.hasPrefix(rule.from) {
            return rule.to + url.dropFirst(rule.from.count)
        }
        return url
    }
}
