import WidgetCore

/// One of N daemons sharing one folder of definitions: `widgetd run --shard K/N`.
///
/// Each widget belongs to exactly one shard, chosen by rendezvous (highest random weight) hashing of
/// its id: the shard whose `StableHash.mixed("K:id")` is largest. No coordination is needed: every
/// daemon computes the same answer from the id alone. Going from N to N+1 shards moves only the
/// widgets the new shard wins, about 1/(N+1) of them, and none between the old shards.
///
/// ```swift
/// let shard = try Shard(parsing: "2/3")
/// shard.owns("news")   // true on exactly one of 0/3, 1/3 and 2/3
/// ```
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// K: this daemon's shard, from 0.
    public let index: Int
    /// N: how many shards there are.
    public let count: Int

    /// - Throws: ``ShardError`` unless `0 ≤ index < count`.
    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, count <= 10_000 else {
            throw ShardError("the shard count \(count) must be between 1 and 10000")
        }
        guard index >= 0, index < count else {
            throw ShardError(
                "shard \(index) does not exist among \(count) (they are numbered 0 to \(count - 1)); write e.g. --shard 0/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`.
    ///
    /// - Throws: ``ShardError`` for anything else.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard; write K/N, e.g. --shard 0/3 for the first of three daemons")
        }
        try self.init(index: index, count: count)
    }

    /// The shard, among `count`, that owns widget `id`.
    public static func owner(of id: String, among count: Int) -> Int {
        var best = 0
        var bestWeight: UInt64 = 0
        for shard in 0..<count {
            let weight = StableHash.mixed("\(shard):\(id)".utf8)
            if shard == 0 || weight > bestWeight {
                best = shard
                bestWeight = weight
            }
        }
        return best
    }

    /// Whether this shard refreshes widget `id`.
    public func owns(_ id: String) -> Bool {
        Shard.owner(of: id, among: count) == index
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}

/// A `--shard` value that does not fit.
public struct ShardError: Error, Sendable, CustomStringConvertible {
    public var description: String

    /// An error with the message `description`.
    public init(_ description: String) {
        self.description = description
    }
}
