/// A small cache of the object keys a JSON reader has already turned into `String`s, and of the shapes
/// (key lists) of the objects it has read.
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
    /// Shapes are kept in sets chosen by an object's first key and depth, a few to a set: records of one
    /// kind often come in variants (a missing or an added key) that would otherwise evict each other.
    private static let shapeSets = 16
    private static let shapeWays = 4
    private static let shapeCount = shapeSets * shapeWays
    /// Slots are initialised only when first used, as `occupied` records, so that reading a small
    /// document does not pay for setting up and tearing down the whole table.
    private let entries: UnsafeMutablePointer<Entry>
    private let occupied: UnsafeMutablePointer<UInt64>
    /// The keys of recent objects. Arrays of records repeat the same keys in the same order: those
    /// objects share one array and one index, and each predicts the next one's keys.
    private let shapes: UnsafeMutablePointer<Shape>
    /// When each shape was last used (by ``clock``), to replace the least recently used of a set.
    private let lastUse: UnsafeMutablePointer<Int>
    private var clock = 0
    /// How many objects being read follow each shape: such a shape is read in place (without copying its
    /// arrays, which would retain and release them) and must not be replaced meanwhile.
    private let pins: UnsafeMutablePointer<Int>

    /// The keys of an object; once the same keys have been seen twice, their text (to predict the next
    /// object's keys without scanning them: compared with this copy, the keys of the next object touch
    /// only a few bytes of memory, not the whole of an earlier object); and, when it has more members than
    /// ``WidgetObject/indexThreshold``, the index from key to position that objects with those keys share.
    struct Shape {
        var keys: [String]
        /// Where each key is in `text`.
        var records: [JSONReader.KeyRecord]
        var index: [String: Int]?
        /// Each key as written and its closing quote, back to back, then eight bytes of padding; owned by
        /// the cache.
        var text: UnsafeMutableRawPointer?

        /// No shape: predicts nothing.
        static var none: Shape { Shape(keys: [], records: [], index: nil, text: nil) }
    }

    init() {
        entries = .allocate(capacity: Self.slotCount)
        occupied = .allocate(capacity: Self.slotCount / 64)
        occupied.initialize(repeating: 0, count: Self.slotCount / 64)
        shapes = .allocate(capacity: Self.shapeCount)
        shapes.initialize(repeating: .none, count: Self.shapeCount)
        lastUse = .allocate(capacity: Self.shapeCount)
        lastUse.initialize(repeating: 0, count: Self.shapeCount)
        pins = .allocate(capacity: Self.shapeCount)
        pins.initialize(repeating: 0, count: Self.shapeCount)
    }

    deinit {
        entries.deinitializeSlots(markedIn: occupied, words: Self.slotCount / 64)
        entries.deallocate()
        occupied.deallocate()
        for slot in 0..<Self.shapeCount { shapes[slot].text?.deallocate() }
        shapes.deinitialize(count: Self.shapeCount)
        shapes.deallocate()
        lastUse.deallocate()
        pins.deallocate()
    }

    /// The slot of the shape of the most recent object at `depth`, seen at least twice, whose first key
    /// is the key `first` (not escaped), to predict the keys of an object that starts the
    /// same way; `nil` when there is none. While an object follows it, the shape is ``pin(_:)``ned.
    @inline(__always)
    func prediction(startingWith first: JSONReader.KeyRecord, depth: Int, in bytes: UnsafePointer<UInt8>) -> Int? {
        guard !first.escaped else { return nil }
        let set = Self.shapeSet(first.hash, depth: depth)
        var best = -1
        for slot in set..<set + Self.shapeWays {
            guard let earlier = shapes[slot].records.first, earlier.hash == first.hash, !earlier.escaped,
                earlier.length == first.length, best < 0 || lastUse[slot] > lastUse[best],
                memoryEqual(earlier.text, first.text, first.length)
            else { continue }
            best = slot
        }
        return best < 0 ? nil : best
    }

    /// Another shape of the set of `slot`, seen at least twice, that begins with the first `members` keys
    /// of the shape in `slot` and then has the key written (not escaped, with its closing quote) at `next`,
    /// from which `readable` bytes can be read; or, when `next` is `nil`, that has those keys only. An
    /// object that leaves its predicted shape (records of one kind with an optional key) goes on following
    /// this one instead of having its remaining keys read one by one.
    @inline(never)
    func alternative(to slot: Int, after members: Int, next: UnsafePointer<UInt8>?, readable: Int) -> Int? {
        let set = slot - slot % Self.shapeWays
        for other in set..<set + Self.shapeWays where other != slot {
            let records = shapes[other].records
            guard records.count > members else {
                if next == nil, records.count == members, members > 0, samePrefix(other, slot, members) {
                    return other
                }
                continue
            }
            guard let next else { continue }
            let record = records[members]
            guard !record.escaped, record.length < readable,
                memoryEqual(record.text, next, record.length + 1, readable: readable),
                samePrefix(other, slot, members)
            else { continue }
            return other
        }
        return nil
    }

    /// Whether the shapes in `slot` and `other` have the same first `members` keys.
    @inline(__always)
    private func samePrefix(_ slot: Int, _ other: Int, _ members: Int) -> Bool {
        shapes[slot].keys.withUnsafeBufferPointer { keys in
            shapes[other].keys.withUnsafeBufferPointer { otherKeys in
                guard keys.count >= members, otherKeys.count >= members else { return false }
                for member in 0..<members where keys[member] != otherKeys[member] { return false }
                return true
            }
        }
    }

    /// Keeps the shape in `slot` from being replaced until ``unpin(_:)``.
    @inline(__always)
    func pin(_ slot: Int) { pins[slot] += 1 }

    @inline(__always)
    func unpin(_ slot: Int) { pins[slot] -= 1 }

    /// The keys of the shape in `slot`.
    @inline(__always)
    func keys(of slot: Int) -> [String] { shapes[slot].keys }

    /// The number of keys of the shape in `slot`.
    @inline(__always)
    func keyCount(of slot: Int) -> Int { shapes[slot].keys.count }

    /// Where the shape in `slot` had its key number `member` in the input.
    @inline(__always)
    func record(_ member: Int, of slot: Int) -> JSONReader.KeyRecord { shapes[slot].records[member] }

    /// The index of the shape in `slot`.
    @inline(__always)
    func index(of slot: Int) -> [String: Int]? { shapes[slot].index }

    /// Notes that an object had exactly the keys of the shape in `slot`.
    @inline(__always)
    mutating func use(_ slot: Int) {
        clock &+= 1
        lastUse[slot] = clock
    }

    /// The keys from `start` to the top of `keys` as an array and the index a ``WidgetObject`` of that
    /// many members keeps, popping them and their records: an earlier object's when it held the same keys
    /// in the same order, else new ones. `index` is the index already built while reading, if any.
    @inline(__always)
    mutating func keys(
        popping keys: inout JSONScratchStack<String>,
        records: inout JSONScratchStack<JSONReader.KeyRecord>,
        from start: Int,
        depth: Int,
        index: [String: Int]?
    ) -> (keys: [String], index: [String: Int]?) {
        let count = keys.count - start
        let set = Self.shapeSet(records[start].hash, depth: depth)
        var oldest = -1
        for slot in set..<set + Self.shapeWays {
            if pins[slot] == 0, oldest < 0 || lastUse[slot] < lastUse[oldest] { oldest = slot }
            guard shapes[slot].keys.count == count else { continue }
            var same = true
            for offset in 0..<count where shapes[slot].keys[offset] != keys[start + offset] {
                same = false
                break
            }
            guard same else { continue }
            keys.pop(from: start)
            // Seen twice: worth keeping where its keys are, to predict the next one. (A pinned shape
            // predicts, so it has them already.)
            if shapes[slot].records.isEmpty {
                shapes[slot].records = records.popArray(from: start)
                shapes[slot].text = Self.copyText(of: &shapes[slot].records)
            } else {
                records.pop(from: start)
            }
            use(slot)
            return (shapes[slot].keys, shapes[slot].index)
        }
        let popped = keys.popArray(from: start)
        records.pop(from: start)
        let shape = Shape(
            keys: popped,
            records: [],
            index: count > WidgetObject.indexThreshold ? (index ?? WidgetObject.makeIndex(popped)) : nil
        )
        // Every shape of the set is being followed by an enclosing object: this one is not kept.
        guard oldest >= 0 else { return (shape.keys, shape.index) }
        shapes[oldest].text?.deallocate()
        shapes[oldest] = shape
        use(oldest)
        return (shape.keys, shape.index)
    }

    /// A copy of the text of the keys `records` point to, each followed by its closing quote, pointing
    /// `records` to it.
    private static func copyText(of records: inout [JSONReader.KeyRecord]) -> UnsafeMutableRawPointer {
        var size = 8
        for record in records { size += record.length + 1 }
        let text = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        var offset = 0
        for index in records.indices {
            let length = records[index].length + 1
            (text + offset).copyMemory(from: records[index].text, byteCount: length)
            records[index].text = UnsafePointer((text + offset).assumingMemoryBound(to: UInt8.self))
            offset += length
        }
        (text + offset).initializeMemory(as: UInt8.self, repeating: 0, count: 8)
        return text
    }

    /// The first slot of the set of shapes of objects at `depth` whose first key has the hash `hash`.
    /// Objects nested in each other often begin with the same key (`id`); the depth keeps them apart.
    @inline(__always)
    private static func shapeSet(_ hash: Int, depth: Int) -> Int {
        ((hash >> 8 ^ depth &* 0x2F) & (shapeSets - 1)) &* shapeWays
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

    /// The string for the escape-free key `bytes[start..<end]` (`isASCII` when all its bytes are) whose
    /// ``hash(_:count:)`` is `hash`, from the cache or newly made. `limit` is the length of the document;
    /// short keys far enough from its end compare in one load.
    @inline(__always)
    func string(
        _ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int, isASCII: Bool, hash: Int, limit: Int
    ) -> String {
        let length = end - start
        guard length > 0, length <= Self.maximumLength else {
            return JSONReader.plainString(bytes + start, count: length, isASCII: isASCII)
        }
        let index = (hash >> 8) & (Self.slotCount - 1)
        let slot = entries + index
        let bit: UInt64 = 1 << UInt64(index & 63)
        let isOccupied = occupied[index >> 6] & bit != 0
        if isOccupied, slot.pointee.length == length,
            memoryEqual(bytes + slot.pointee.offset, bytes + start, length, readable: limit - start)
        {
            return slot.pointee.string
        }
        let string = JSONReader.plainString(bytes + start, count: length, isASCII: isASCII)
        if isOccupied {
            slot.pointee = Entry(offset: start, length: length, string: string)
        } else {
            slot.initialize(to: Entry(offset: start, length: length, string: string))
            occupied[index >> 6] |= bit
        }
        return string
    }
}

/// Whether the `count` bytes at `a` and at `b` are equal. `readable` is how many bytes can be read from
/// `b` (and so from `a`, which is at or before `b` in the same input): when it is at least eight, short
/// runs compare in one load.
@inline(__always)
func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int, readable: Int = 0) -> Bool {
    if count <= 8, readable >= 8 {
        let mask: UInt64 = count == 8 ? ~0 : (1 << UInt64(count &* 8)) &- 1
        return (JSONReader.loadWord(a) ^ JSONReader.loadWord(b)) & mask == 0
    }
    if count >= 8 {
        // Whole words, then the last eight bytes (overlapping the words already compared).
        var index = 0
        while index + 8 < count {
            if JSONReader.loadWord(a + index) != JSONReader.loadWord(b + index) { return false }
            index += 8
        }
        return JSONReader.loadWord(a + count - 8) == JSONReader.loadWord(b + count - 8)
    }
    var index = 0
    while index < count {
        if a[index] != b[index] { return false }
        index += 1
    }
    return true
}

extension UnsafeMutablePointer {
    /// Deinitializes the slots of a cache whose bits are set in `occupied`, one bit a slot, `words` words
    /// of 64 slots: the slots the JSON reader's caches initialised, as they first used them.
    func deinitializeSlots(markedIn occupied: UnsafeMutablePointer<UInt64>, words: Int) {
        for word in 0..<words {
            var bits = occupied[word]
            while bits != 0 {
                (self + word * 64 + bits.trailingZeroBitCount).deinitialize(count: 1)
                bits &= bits &- 1
            }
        }
    }
}
