/// A dictionary key hashed once, when it is made: a lookup, and the insertion after a miss, then hash
/// one integer instead of the whole key again (a stage's options, a member of a definition).
struct HashedKey<Parts: Hashable & Sendable>: Hashable, Sendable {
    let parts: Parts
    private let hash: Int

    init(_ parts: Parts) {
        self.parts = parts
        hash = parts.hashValue
    }

    static func == (a: HashedKey, b: HashedKey) -> Bool {
        a.hash == b.hash && a.parts == b.parts
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
