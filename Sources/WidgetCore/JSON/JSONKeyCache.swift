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
    private static let shapeCount = 64
    /// Slots are initialised only when first used, as `occupied` records, so that reading a small
    /// document does not pay for setting up and tearing down the whole table.
    private let entries: UnsafeMutablePointer<Entry>
    private let occupied: UnsafeMutablePointer<UInt64>
    /// The keys of recent objects, by their first key. Arrays of records repeat the same keys in the same
    /// order: those objects share one array and one index, and each predicts the next one's keys.
    private let shapes: UnsafeMutablePointer<Shape>
    /// Counts the changes of each shape slot, for ``Prediction``.
    private let stamps: UnsafeMutablePointer<Int>

    /// The keys of an object, where they were in the input once the same keys have been seen twice
    /// (to predict the next object's keys without scanning them), and, when it has more members than
    /// ``WidgetObject/indexThreshold``, the index from key to position that objects with those keys share.
    struct Shape {
        var keys: [String]
        var records: [JSONReader.KeyRecord]
        var index: [String: Int]?

        /// No shape: predicts nothing.
        static var none: Shape { Shape(keys: [], records: [], index: nil) }
    }

    init() {
        entries = .allocate(capacity: Self.slotCount)
        occupied = .allocate(capacity: Self.slotCount / 64)
        occupied.initialize(repeating: 0, count: Self.slotCount / 64)
        shapes = .allocate(capacity: Self.shapeCount)
        shapes.initialize(repeating: .none, count: Self.shapeCount)
        stamps = .allocate(capacity: Self.shapeCount)
        stamps.initialize(repeating: 0, count: Self.shapeCount)
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
        stamps.deallocate()
    }

    /// A shape predicting an object's keys: its slot, and the slot's stamp when it was chosen (reading a
    /// nested object can put another shape in that slot; the prediction then no longer holds).
    struct Prediction {
        var slot: Int
        var stamp: Int
    }

    /// The shape of an earlier object at `depth` whose first key is the key `first` (not escaped) at
    /// `first.start`, to predict the keys of an object that starts the same way; `nil` when there is none.
    @inline(__always)
    func prediction(
        startingWith first: JSONReader.KeyRecord,
        depth: Int,
        in bytes: UnsafePointer<UInt8>
    ) -> Prediction? {
        guard !first.escaped else { return nil }
        let slot = Self.shapeSlot(first.hash, depth: depth)
        guard let earlier = shapes[slot].records.first, !earlier.escaped, earlier.length == first.length,
            memoryEqual(bytes + earlier.start, bytes + first.start, first.length)
        else { return nil }
        return Prediction(slot: slot, stamp: stamps[slot])
    }

    /// Where the predicted shape's key number `member` was in the input; `nil` when the shape has fewer
    /// keys or has been replaced.
    @inline(__always)
    func record(_ member: Int, of prediction: Prediction) -> JSONReader.KeyRecord? {
        guard stamps[prediction.slot] == prediction.stamp, member < shapes[prediction.slot].records.count else {
            return nil
        }
        return shapes[prediction.slot].records[member]
    }

    /// The predicted shape's key number `member`, after ``record(_:of:)`` has found it.
    @inline(__always)
    func key(_ member: Int, of prediction: Prediction) -> String {
        shapes[prediction.slot].keys[member]
    }

    /// The keys from `start` to the top of `keys` as an array and the index a ``WidgetObject`` of that
    /// many members keeps, popping them and their records: the predicted shape's when the object has
    /// exactly its keys, else an earlier object's when it holds the same keys in the same order, else
    /// new ones. `index` is the index already built while reading, if any.
    @inline(__always)
    func keys(
        popping keys: inout JSONScratchStack<String>,
        records: inout JSONScratchStack<JSONReader.KeyRecord>,
        from start: Int,
        depth: Int,
        prediction: Prediction?,
        index: [String: Int]?
    ) -> (keys: [String], index: [String: Int]?) {
        let count = keys.count - start
        if let prediction, stamps[prediction.slot] == prediction.stamp,
            shapes[prediction.slot].keys.count == count
        {
            keys.pop(from: start)
            records.pop(from: start)
            return (shapes[prediction.slot].keys, shapes[prediction.slot].index)
        }
        let slot = shapes + Self.shapeSlot(records[start].hash, depth: depth)
        if slot.pointee.keys.count == count {
            var same = true
            for offset in 0..<count where slot.pointee.keys[offset] != keys[start + offset] {
                same = false
                break
            }
            if same {
                keys.pop(from: start)
                // Seen twice: worth keeping where its keys are, to predict the next one.
                if slot.pointee.records.isEmpty {
                    slot.pointee.records = records.popArray(from: start)
                    stamps[slot - shapes] &+= 1
                }
                records.pop(from: start)
                return (slot.pointee.keys, slot.pointee.index)
            }
        }
        let popped = keys.popArray(from: start)
        records.pop(from: start)
        let shape = Shape(
            keys: popped,
            records: [],
            index: count > WidgetObject.indexThreshold ? (index ?? WidgetObject.makeIndex(popped)) : nil
        )
        slot.pointee = shape
        stamps[slot - shapes] &+= 1
        return (shape.keys, shape.index)
    }

    /// The slot of the shape of an object at `depth` whose first key has the hash `hash`. Objects nested
    /// in each other often begin with the same key (`id`); the depth keeps them apart.
    @inline(__always)
    private static func shapeSlot(_ hash: Int, depth: Int) -> Int {
        (hash >> 8 ^ depth &* 0x2F) & (shapeCount - 1)
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
