import Foundation

/// The bounds every value widgetd builds stays within, whoever builds it: the JSON, XML, feed and
/// Firestore parsers, templates and transforms, and the files widgetd reads back.
///
/// - **Depth**: no value nests lists and objects deeper than ``maximumDepth`` (512). Every parser stops
///   there with an error, a refresh whose transforms nest deeper fails, and what widgetd saved (snapshots,
///   state) is read back with room for the few levels its own files add (``fileDepthAllowance``): a value
///   that could be written can always be read back, so a widget's last good data is never lost to depth.
/// - **Size**: a parsed value holds at most ``maximumValues`` values (items, members and scalars
///   together): one for every ``bodyCapBytesPerValue`` bytes of the source's body cap (its `maxBytes`,
///   10 MiB by default: 1,310,720 values, roughly 8 times the cap in memory). A snapshot may take at most
///   ``maximumSnapshotBytes`` and a widget's gallery page ``maximumPageBytes`` (each 4 times the cap).
///   Raising the source's `maxBytes` raises them all. Templates have their own budget (`RenderBudget`).
///
/// ```swift
/// let limits = ValueLimits(bodyCap: payload.maxBytes)
/// let value = try JSONReader.read(payload.data, limits: limits)
/// ```
public struct ValueLimits: Sendable, Hashable {
    /// The deepest nesting of lists and objects any value may have: 512. A scalar has depth 0, `[]` 1,
    /// `[[1]]` 2.
    public static let maximumDepth = 512
    /// The levels widgetd's own files add around a value (a snapshot's `entries[i].content`, a state's
    /// `fetchCache[stage].value` in its journal line): they are read back with ``maximumDepth`` plus this.
    public static let fileDepthAllowance = 8
    /// The body cap a source has when it does not say: 10 MiB, HTTP's default `maxBytes`.
    public static let defaultBodyCap = 10 * 1024 * 1024
    /// Bytes of body cap per value a parsed value may hold: 8.
    public static let bodyCapBytesPerValue = 8
    /// How many times the body cap a snapshot or a page may take: 4.
    public static let fileBytesPerBodyByte = 4
    /// The fewest values a parsed value may hold, however small the cap: 65,536.
    public static let minimumValues = 1 << 16
    /// The smallest snapshot and page limit, however small the cap: 1 MiB.
    public static let minimumFileBytes = 1 << 20

    /// The body cap the limits scale from, in bytes: the source's `maxBytes`.
    public let bodyCap: Int

    /// The limits for a source whose body cap is `bodyCap` bytes (``defaultBodyCap`` when `nil`).
    public init(bodyCap: Int? = nil) {
        self.bodyCap = max(1, bodyCap ?? Self.defaultBodyCap)
    }

    /// The most values (items, members and scalars together) one parsed value may hold.
    public var maximumValues: Int { max(Self.minimumValues, bodyCap / Self.bodyCapBytesPerValue) }
    /// The largest snapshot file, in bytes.
    public var maximumSnapshotBytes: Int { max(Self.minimumFileBytes, Self.scaled(bodyCap, by: Self.fileBytesPerBodyByte)) }
    /// The size of one widget's gallery page, in bytes, past which it adds no more entries.
    public var maximumPageBytes: Int { maximumSnapshotBytes }

    /// `value` times `factor`, saturating.
    static func scaled(_ value: Int, by factor: Int) -> Int {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }

    // MARK: - Messages

    /// The fix that raises the size limits, for messages.
    var raiseHint: String {
        "raise the source's \"maxBytes\" (now \(bodyCap)) to allow more, or ask the source for less"
    }

    /// Why a parsed value was refused: `what` (e.g. "the feed from https://…") holds more than
    /// ``maximumValues`` values.
    public func tooManyValuesMessage(_ what: String) -> String {
        "\(what) holds more than \(maximumValues) values (items, members and scalars), the limit for a source whose body cap is "
            + "\(bodyCap) bytes (one value per \(Self.bodyCapBytesPerValue) bytes); \(raiseHint)"
    }

    /// Why a value was refused: `what` nests lists and objects deeper than ``maximumDepth``.
    public static func tooDeepMessage(_ what: String) -> String {
        "\(what) nests lists and objects deeper than \(maximumDepth) levels, the limit for any value widgetd keeps "
            + "(it cannot be raised); ask for a flatter document, or select a part of it"
    }

    /// Why a snapshot was not written: it would take `size` bytes or more.
    public func snapshotTooLargeMessage(_ size: Int) -> String {
        "the snapshot would take \(size) bytes or more, more than its limit of \(maximumSnapshotBytes) bytes "
            + "(\(Self.fileBytesPerBodyByte) times the source's body cap); keep fewer entries (the timeline's \"limit\") or smaller ones, or "
            + raiseHint
    }

    /// Why a widget's page stops before its last entries.
    public func pageTooLargeMessage() -> String {
        "the page reached its limit of \(maximumPageBytes) bytes (\(Self.fileBytesPerBodyByte) times the source's body cap); the later "
            + "entries are left out; make the view smaller, keep fewer entries, or raise the source's \"maxBytes\""
    }

    // MARK: - Measuring

    /// The number of values `value` holds: itself, and every item, member and scalar inside it. Walks the
    /// value without recursion, and stops once past `limit`, returning `limit + 1`.
    public static func count(of value: WidgetValue, upTo limit: Int = .max) -> Int {
        var total = 0
        var pending: [WidgetValue] = [value]
        while let next = pending.popLast() {
            total += 1
            if total > limit { return limit &+ 1 }
            switch next {
            case .array(let elements): pending.append(contentsOf: elements)
            case .object(let object): pending.append(contentsOf: object.values)
            default: break
            }
        }
        return total
    }

    /// The depth of `value`: 0 for a scalar, 1 + the deepest member or element for a list or an object.
    /// Walks the value without recursion, and stops once past `limit`, returning `limit + 1`.
    public static func depth(of value: WidgetValue, upTo limit: Int = maximumDepth) -> Int {
        // Each level's remaining children, deepest last.
        var stack: [ArraySlice<WidgetValue>] = []
        var deepest = 0
        func push(_ value: WidgetValue) {
            switch value {
            case .array(let elements): stack.append(elements[...])
            case .object(let object): stack.append(object.values[...])
            default: return
            }
            deepest = max(deepest, stack.count)
        }
        push(value)
        while !stack.isEmpty, deepest <= limit {
            guard let next = stack[stack.count - 1].popFirst() else {
                stack.removeLast()
                continue
            }
            push(next)
        }
        return min(deepest, limit + 1)
    }
}
