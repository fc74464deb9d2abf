import Synchronization
package import WidgetJSON

/// How much work templates may do: a count of steps that every template rendered with a scope carrying
/// it (``TemplateScope/steps``) spends, and an error once it is spent.
///
/// A step is one tag or text of a template rendered, one number of a range `(a..b)`, and one filter call
/// plus one for each element of the list or object it is given (or each 64 bytes of its text); an
/// iteration of a `for` or `tablerow` loop counts ``loopIterationSteps``, as it builds its `forloop`
/// object. A template that reads no data can then not keep a core busy forever:
/// `{% for a in (1..100000) %}{% for b in (1..100000) %}{% endfor %}{% endfor %}` (10¹⁰ iterations)
/// stops after about a million iterations, with an error that names the limit and `--template-steps`.
///
/// The counter is one atomic integer: each step costs a subtraction, however many templates share it. A
/// refresh shares one among all its templates; a definition's checks
/// when it loads, and each gallery card, have their own.
///
/// ```swift
/// var scope = TemplateScope(globals: ["items": items])
/// scope.steps = TemplateSteps()
/// ```
public final class TemplateSteps: Sendable {
    /// The default: 10 million steps.
    ///
    /// A template that loops over 10,000 items with a dozen tags in the loop takes about 220,000; a
    /// `map` of 100,000 items with ten fields of two filters each about 3 million; the largest case of
    /// the Liquid conformance suite a few thousand. Ten million steps of empty loops take a release
    /// build about half a second.
    public static let defaultLimit = 10_000_000

    /// The steps one iteration of a loop counts: it builds its `forloop` object of nine members.
    public static let loopIterationSteps = 10

    /// The steps this budget started with.
    public let limit: Int
    /// What the steps count for, in the error: `one refresh`, say.
    public let scope: String
    private let left: Atomic<Int>

    /// A budget of `limit` steps, none spent; `scope` names what it counts for in the error, e.g.
    /// `"one refresh"` or `"the checks of one definition"`.
    public init(limit: Int = TemplateSteps.defaultLimit, for scope: String = "one refresh") {
        self.limit = limit
        self.scope = scope
        left = Atomic(limit)
    }

    /// The steps spent so far (at most a little over ``limit``).
    public var spent: Int {
        limit - left.load(ordering: .relaxed)
    }

    /// Spends `count` steps, or throws once the budget is spent.
    ///
    /// - Throws: `ExpressionError` naming the limit, when fewer than `count` steps were left.
    @inline(__always)
    func spend(_ count: Int = 1) throws(ExpressionError) {
        if left.wrappingSubtract(count, ordering: .relaxed).newValue < 0 { throw exhausted }
    }

    /// Whether the budget is spent: the next step throws.
    package var isSpent: Bool {
        left.load(ordering: .relaxed) < 0
    }

    /// Whether `error` is the error of a spent budget.
    package static func isExhaustion(_ error: ExpressionError) -> Bool {
        error.reason.hasPrefix(exhaustionPrefix)
    }

    private static let exhaustionPrefix = "the templates did more than "

    /// The error of a spent budget.
    var exhausted: ExpressionError {
        ExpressionError(
            Self.exhaustionPrefix + "\(limit) steps (tags, loop iterations and filter calls), the limit for \(scope)",
            hint:
                "loop over fewer items (a loop's limit:, or where, slice or first before it) or nest fewer loops; --template-steps N raises the limit"
        )
    }

    /// The steps a filter call costs given `value`: one, plus one for each element of a list or object,
    /// or for each 64 bytes of a text.
    @inline(__always)
    static func cost(of value: WidgetValue) -> Int {
        switch value {
        case .array(let array): 1 + array.count
        case .object(let object): 1 + object.count
        case .string(let text): 1 + text.utf8.count >> 6
        default: 1
        }
    }
}
