/// A small cache of the object keys a JSON reader has already turned into `String`s.
///
/// Real documents repeat the same few keys thousands of times. Looking a key's bytes up here (a hash of
/// its length and a few bytes, then a byte compare against its earlier occurrence in the same input)
/// is cheaper than validating and building a new `String`, and repeated long keys share one storage.
/// Slots are overwritten on collision; the cache only ever saves work, never changes a result.
struct JSONKeyCache: ~Copyable {
    private struct Entry {
        var offset: Int
        var length: Int
        var string: String
    }

    private static let slotCount = 256
    private static let maximumLength = 64
    private static let shapeCount = 16
    /// Slots are initialised only when first used, as `occupied` records, so that reading a small
    /// document does not pay for setting up and tearing down the whole table.
    private let entries: UnsafeMutablePointer<Entry>
    private let occupied: UnsafeMutablePointer<UInt64>
    /// Key arrays of recent objects. Arrays of records repeat the same keys in the same order, and
    /// those objects can share one array.
    private let shapes: UnsafeMutablePointer<[String]>

    init() {
        entries = .allocate(capacity: Self.slotCount)
        occupied = .allocate(capacity: Self.slotCount / 64)
        occupied.initialize(repeating: 0, count: Self.slotCount / 64)
        shapes = .allocate(capacity: Self.shapeCount)
        shapes.initialize(repeating: [], count: Self.shapeCount)
    }

    deinit {
        for word in 0..<Self.slotCount / 64 {
            var bits = occupied[word]
            while bits != 0 {
                (entries + word * 64 + bits.trailingZeroBitCount).deinitialize(count: 1)
                bits &= bits &- 1
            }
        }
        entries.deallocate()
        occupied.deallocate()
        shapes.deinitialize(count: Self.shapeCount)
        shapes.deallocate()
    }

    /// The keys from `start` to the top of `stack` as an array, popping them: an earlier object's array
    /// when it holds the same keys in the same order, else a new one. `hash` is the first key's hash.
    @inline(__always)
    func keys(popping stack: inout JSONScratchStack<String>, from start: Int, hash: Int) -> [String] {
        let count = stack.count - start
        let slot = shapes + ((hash &+ count &* 0x9E37_79B1) >> 8 & (Self.shapeCount - 1))
        let cached = slot.pointee
        if cached.count == count {
            var same = true
            for offset in 0..<count where cached[offset] != stack[start + offset] {
                same = false
                break
            }
            if same {
                stack.pop(from: start)
                return cached
            }
        }
        let keys = stack.popArray(from: start)
        slot.pointee = keys
        return keys
    }

    /// A hash of a key's bytes: its length and its first, middle and last bytes. Equal keys have equal
    /// hashes, so keys whose hashes differ are known to differ without comparing them.
    @inline(__always)
    static func hash(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int {
        guard count > 0 else { return 0 }
        var hash = count &* 0x9E37_79B1
        hash = (hash ^ Int(bytes[0])) &* 0x0100_0193
        hash = (hash ^ Int(bytes[count - 1])) &* 0x0100_0193
        hash = (hash ^ Int(bytes[count / 2])) &* 0x0100_0193
        return hash
    }

    /// The string for the escape-free key `bytes[start..<end]` whose ``hash(_:count:)`` is `hash`, from
    /// the cache or newly made.
    @inline(__always)
    /// `limit` is the length of the document; short keys far enough from its end compare in one load.
    func string(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int, hash: Int, limit: Int) -> String {
        let length = end - start
        guard length > 0, length <= Self.maximumLength else {
            return String(decoding: UnsafeBufferPointer(start: bytes + start, count: length), as: UTF8.self)
        }
        let index = (hash >> 8) & (Self.slotCount - 1)
        let slot = entries + index
        let bit: UInt64 = 1 << UInt64(index & 63)
        let isOccupied = occupied[index >> 6] & bit != 0
        if isOccupied, slot.pointee.length == length {
            let offset = slot.pointee.offset
            if length <= 8, start + 8 <= limit {
                // The earlier occurrence starts before `start`, so eight bytes can be read there too.
                let mask: UInt64 = length == 8 ? ~0 : (1 << UInt64(length * 8)) - 1
                let a = UnsafeRawPointer(bytes + offset).loadUnaligned(as: UInt64.self)
                let b = UnsafeRawPointer(bytes + start).loadUnaligned(as: UInt64.self)
                if (a ^ b) & mask == 0 { return slot.pointee.string }
            } else if memoryEqual(bytes + offset, bytes + start, length) {
                return slot.pointee.string
            }
        }
        let string = String(decoding: UnsafeBufferPointer(start: bytes + start, count: length), as: UTF8.self)
        if isOccupied {
            slot.pointee = Entry(offset: start, length: length, string: string)
        } else {
            slot.initialize(to: Entry(offset: start, length: length, string: string))
            occupied[index >> 6] |= bit
        }
        return string
    }
}

/// Whether `count` bytes at `a` and `b` are equal.
@inline(__always)
func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 0
    while index + 8 <= count {
        if UnsafeRawPointer(a + index).loadUnaligned(as: UInt64.self)
            != UnsafeRawPointer(b + index).loadUnaligned(as: UInt64.self)
        {
            return false
        }
        index += 8
    }
    while index < count {
        if a[index] != b[index] { return false }
        index += 1
    }
    return true
}
