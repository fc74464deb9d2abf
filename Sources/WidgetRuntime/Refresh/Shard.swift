import WidgetCore

/// One of N daemons sharing one folder of definitions: `widgetd run --shard K/N`, K from 1 to N.
///
/// Each widget belongs to exactly one shard, chosen by rendezvous (highest random weight) hashing of
/// its id: the shard K whose `StableHash.mixed("I:id")` is largest, where I = K − 1 (the shard's
/// ``index``, from 0). No coordination is needed: every daemon computes the same answer from the id
/// alone. Going from N to N+1 shards moves only the widgets the new shard wins, about 1/(N+1) of them,
/// and none between the old shards.
///
/// K counts from 1: `--shard 3/3` is the last of three (a StatefulSet's pod with ordinal 2). Earlier
/// versions counted from 0; their shard `K/N` is `K+1/N` now, and owns the same widgets.
///
/// ```swift
/// let shard = try Shard(parsing: "2/3")
/// shard.owns("news")   // true on exactly one of 1/3, 2/3 and 3/3
/// shard.name           // "2-of-3", as in the keys shards/2-of-3.json
/// ```
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// K: this daemon's shard, from 1 to ``count``.
    public let number: Int
    /// N: how many shards there are.
    public let count: Int

    /// K − 1: the shard's place among the N, from 0 (what ownership weighs).
    public var index: Int { number - 1 }

    /// Shard `number` of `count`.
    ///
    /// - Throws: ``ShardError`` unless `1 ≤ number ≤ count ≤ 10000`.
    public init(number: Int, count: Int) throws(ShardError) {
        guard count >= 1, count <= 10_000 else {
            throw ShardError("the shard count \(count) must be between 1 and 10000")
        }
        guard number >= 1, number <= count else {
            throw ShardError(
                "shard \(number) does not exist among \(count) (they are numbered 1 to \(count)); write e.g. --shard 1/\(count)")
        }
        self.number = number
        self.count = count
    }

    /// Reads `K/N`.
    ///
    /// - Throws: ``ShardError`` for anything else.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let number = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard; write K/N, e.g. --shard 1/3 for the first of three daemons")
        }
        try self.init(number: number, count: count)
    }

    /// The number K, from 1 to `count`, of the shard that owns widget `id`.
    public static func owner(of id: String, among count: Int) -> Int {
        var best = 0
        var bestWeight: UInt64 = 0
        for index in 0..<count {
            let weight = StableHash.mixed("\(index):\(id)".utf8)
            if index == 0 || weight > bestWeight {
                best = index
                bestWeight = weight
            }
        }
        return best + 1
    }

    /// Whether this shard refreshes widget `id`.
    public func owns(_ id: String) -> Bool {
        Shard.owner(of: id, among: count) == number
    }

    /// `K/N`.
    public var description: String { "\(number)/\(count)" }

    /// `K-of-N`: the shard's name in keys (`shards/K-of-N.json`, `.state/shards/K-of-N/lease.json`).
    public var name: String { "\(number)-of-\(count)" }
}

/// A `--shard` value that does not fit.
public struct ShardError: Error, Sendable, CustomStringConvertible {
    public var description: String

    /// An error with the message `description`.
    public init(_ description: String) {
        self.description = description
    }
}
