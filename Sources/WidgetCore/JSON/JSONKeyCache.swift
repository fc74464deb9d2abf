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
    private let entries: UnsafeMutablePointer<Entry?>

    init() {
        entries = .allocate(capacity: Self.slotCount)
        entries.initialize(repeating: nil, count: Self.slotCount)
    }

    deinit {
        entries.deinitialize(count: Self.slotCount)
        entries.deallocate()
    }

    /// The string for the escape-free key `bytes[start..<end]`, from the cache or newly made.
    @inline(__always)
    func string(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) -> String {
        let length = end - start
        guard length > 0, length <= Self.maximumLength else {
            return String(decoding: UnsafeBufferPointer(start: bytes + start, count: length), as: UTF8.self)
        }
        var hash = length &* 0x9E37_79B1
        hash = (hash ^ Int(bytes[start])) &* 0x0100_0193
        hash = (hash ^ Int(bytes[end - 1])) &* 0x0100_0193
        hash = (hash ^ Int(bytes[start + length / 2])) &* 0x0100_0193
        let slot = entries + ((hash >> 8) & (Self.slotCount - 1))
        if let entry = slot.pointee, entry.length == length,
            memoryEqual(bytes + entry.offset, bytes + start, length)
        {
            return entry.string
        }
        let string = String(decoding: UnsafeBufferPointer(start: bytes + start, count: length), as: UTF8.self)
        slot.pointee = Entry(offset: start, length: length, string: string)
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
