import Synchronization
public import WidgetJSON

/// How much text templates may produce: at most ``maximumTextBytes`` for one text (a filter's result or a
/// rendered template), and, when a scope carries a budget, at most its bytes for all the templates of one
/// refresh together.
///
/// A template cannot then turn a small input into gigabytes (`{{ (1..99999) | join | replace: ' ', big }}`):
/// `replace` and `join` check the size of their result before building it, every other filter's result
/// is checked after, and a refresh that renders more than its budget fails with a message naming the limit.
///
/// ```swift
/// var scope = TemplateScope(globals: ["items": items])
/// scope.budget = RenderBudget(bytes: 32 << 20)
/// ```
public final class RenderBudget: Sendable {
    /// The most UTF-8 bytes one text may have: 1 MiB.
    public static let maximumTextBytes = 1 << 20
    /// The default for one refresh: 32 MiB.
    public static let defaultBytes = 32 << 20

    /// The budget this one started with.
    public let bytes: Int
    private let used = Mutex(0)

    /// Creates a budget of `bytes` bytes of rendered text, none used yet; 32 MiB by default.
    public init(bytes: Int = RenderBudget.defaultBytes) {
        self.bytes = bytes
    }

    /// Counts `count` bytes of rendered text, or throws when that passes the budget.
    public func charge(_ count: Int) throws(ExpressionError) {
        if spend(count) > bytes {
            throw ExpressionError(
                "the templates of this refresh produced more than \(bytes) bytes, the limit for one refresh",
                hint: "shorten what they build (truncate, slice, fewer items)"
            )
        }
    }

    /// Adds `cost` bytes to what this refresh used (saturating) and returns the new total.
    private func spend(_ cost: Int) -> Int {
        used.withLock { used in
            let (sum, overflow) = used.addingReportingOverflow(cost)
            used = overflow ? .max : sum
            return used
        }
    }

    /// Throws unless a text of `count` bytes is within ``maximumTextBytes``; `what` names the producer.
    static func check(_ count: Int, producedBy what: String, column: Int? = nil) throws(ExpressionError) {
        guard count > maximumTextBytes else { return }
        throw ExpressionError(
            "\(what) would make a text of \(count) bytes, more than the \(maximumTextBytes) one template value may have",
            column: column,
            hint: "shorten the data first (truncate, slice, first)"
        )
    }
}

// MARK: - Lists and objects

extension RenderBudget {
    /// The most items one list (or members one object) a template value may have: 1,048,576.
    ///
    /// `concat` is checked before it builds its result, and `split` makes at most one part past the
    /// limit (a text can hold far more parts than a list may have items); every filter's list or object
    /// is checked after.
    public static let maximumItems = 1 << 20
    /// The bytes each item of a list or object that a template keeps counts for in the refresh's budget:
    /// its slot (the items themselves are shared with the data they came from).
    public static let bytesPerItem = 16

    /// Counts a list or object of `count` items that a template keeps (its result), or throws when that
    /// passes the budget, shared with the text the templates produce.
    public func chargeItems(_ count: Int) throws(ExpressionError) {
        let (cost, overflow) = count.multipliedReportingOverflow(by: Self.bytesPerItem)
        if spend(overflow ? .max : cost) > bytes {
            throw ExpressionError(
                "the templates of this refresh produced text and lists of more than \(bytes) bytes together (each item of a "
                    + "list or object counts \(Self.bytesPerItem)), the limit for one refresh",
                hint: "keep fewer items (slice, first, limit, where)"
            )
        }
    }

    /// Throws unless a list or object of `count` items is within ``maximumItems``; `what` names the
    /// producer.
    static func checkItems(_ count: Int, producedBy what: String, column: Int? = nil) throws(ExpressionError) {
        guard count > maximumItems else { return }
        throw ExpressionError(
            "\(what) would make a list of \(count) items, more than the \(maximumItems) one template value may have",
            column: column,
            hint: "keep fewer items first (slice, first, where, uniq)"
        )
    }

    /// The number of items of a list or members of an object; `nil` for any other value.
    static func itemCount(_ value: WidgetValue) -> Int? {
        switch value {
        case .array(let elements): elements.count
        case .object(let object): object.count
        default: nil
        }
    }
}
