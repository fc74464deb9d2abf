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
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
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
}
