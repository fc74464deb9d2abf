import WidgetCore
public import WidgetJSON

/// Writes what a snapshot shows to the test log, one line a state, so that a run's output holds an example
/// of every state a widget can be in:
///
/// ```
/// snapshot [004 zero cost basis] {"status":"fresh","entry":{"holdings":[…]}}
/// ```
///
/// The line holds the snapshot's `status`, its `error` when there is one, and the content of its first
/// entry (the one a front-end shows first).
public enum SnapshotLog {
    /// Prints `snapshot` under `label`.
    public static func show(_ label: String, _ snapshot: WidgetValue) {
        print("snapshot [\(label)] \(JSONWriter.string(excerpt(snapshot)))")
    }

    /// The members of `snapshot` that `show` prints.
    public static func excerpt(_ snapshot: WidgetValue) -> WidgetValue {
        var members: [(String, WidgetValue)] = [("status", snapshot["status"] ?? .null)]
        if let error = snapshot["error"], error != .null { members.append(("error", error)) }
        members.append(("entry", snapshot["entries"]?[0]?["content"] ?? .null))
        return .object(WidgetObject(members))
    }
}
