/// A 64-bit hash that is the same on every run, machine and platform (unlike `Hasher`, which is seeded
/// per process): FNV-1a over the bytes, optionally followed by a finalizer that spreads small input
/// differences over every bit.
///
/// ```swift
/// StableHash.fnv1a("GET https://example.com/".utf8)   // for fingerprints
/// StableHash.mixed("2:news".utf8)                      // for choosing among shards
/// ```
public enum StableHash {
    /// FNV-1a, 64 bits.
    public static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        // Not through `Wide`: request fingerprints and definition keys need one hash, not two.
        var hash: UInt64 = Wide.offsetBasis
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* Wide.prime }
        return hash
    }

    /// FNV-1a followed by the 64-bit finalizer of MurmurHash3: inputs that differ in one byte get
    /// unrelated values, as rendezvous hashing needs.
    public static func mixed(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = fnv1a(bytes)
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }

    /// FNV-1a and FNV-1 side by side over bytes given one at a time: two unrelated 64-bit hashes of the
    /// same input, 128 bits together, for fingerprints that must not collide by chance (a definition's
    /// fingerprint, compared on every reload).
    ///
    /// ```swift
    /// var hasher = StableHash.Wide()
    /// for byte in "{\"a\":1}".utf8 { hasher.add(byte) }
    /// hasher.hexDigest   // 32 hexadecimal digits at most
    /// ```
    public struct Wide: Sendable {
        /// FNV's 64-bit offset basis and prime.
        static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
        static let prime: UInt64 = 0x100_0000_01b3

        /// The FNV-1a half.
        public private(set) var first: UInt64 = offsetBasis
        /// The FNV-1 half (multiply, then xor), from FNV-1's own offset basis.
        public private(set) var second: UInt64 = 0x6c62_272e_07bb_0142

        /// An empty hash.
        public init() {}

        /// Feeds one byte.
        public mutating func add(_ byte: UInt8) {
            first = (first ^ UInt64(byte)) &* Self.prime
            second = (second &* Self.prime) ^ UInt64(byte)
        }

        /// The two halves in hexadecimal, without leading zeros, first then second.
        public var hexDigest: String { String(first, radix: 16) + String(second, radix: 16) }
    }
}
