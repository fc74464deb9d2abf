/// A small cache of the long string values a JSON reader has made, found by the text they are written
/// with in the input.
///
/// Documents repeat long strings: a retweet repeats the whole status it quotes, records repeat URLs,
/// dates and names. A string written the same way reads to the same `String`, so a repeat is one hash and
/// one byte compare against its earlier occurrence in the input, instead of checking its UTF-8 and
/// copying it into new storage; the repeats share that storage. Strings of up to 15 bytes are stored
/// inside `String` without allocating and are not cached. Slots are overwritten on collision: the
/// cache only ever saves work, never changes a result.
struct JSONStringCache: ~Copyable {
    private struct Entry {
        /// Where the string is written (between its quotes, escapes included) in the input.
        var offset: Int
        var length: Int
        var string: String
    }

    /// The shortest text, as written, that is cached.
    static let minimumLength = 16
    private static let slotCount = 256
    /// Allocated when the first long string is read, so that documents without any pay nothing. Slots
    /// are initialised only when first used, as `occupied` records.
    private var entries: UnsafeMutablePointer<Entry>?
    private var occupied: UnsafeMutablePointer<UInt64>?

    init() {}

    deinit {
        guard let entries, let occupied else { return }
        entries.deinitializeSlots(markedIn: occupied, words: Self.slotCount / 64)
        entries.deallocate()
        occupied.deallocate()
    }

    /// The string made for an earlier occurrence of the `length` bytes (at least ``minimumLength``) at
    /// `start` in `bytes`, if it is still cached; and the slot to ``keep(_:in:from:length:)`` the string
    /// made for them in otherwise.
    @inline(__always)
    mutating func string(_ bytes: UnsafePointer<UInt8>, from start: Int, length: Int) -> (string: String?, slot: Int) {
        let text = bytes + start
        // The first, middle and last eight bytes, and the length.
        var hash = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        hash = (hash ^ JSONReader.loadWord(text)) &* 0xFF51_AFD7_ED55_8CCD
        hash = (hash ^ JSONReader.loadWord(text + (length &- 8))) &* 0xC4CE_B9FE_1A85_EC53
        hash = (hash ^ JSONReader.loadWord(text + (length &>> 1 &- 4))) &* 0x9E37_79B9_7F4A_7C15
        let index = Int(truncatingIfNeeded: hash &>> 56)
        let (entries, occupied) = storage()
        let slot = entries + index
        if occupied[index >> 6] & (1 << UInt64(index & 63)) != 0, slot.pointee.length == length,
            memoryEqual(bytes + slot.pointee.offset, text, length)
        {
            return (slot.pointee.string, index)
        }
        return (nil, index)
    }

    /// Keeps `string`, made for the `length` bytes at `start` in the input, in `slot`.
    @inline(__always)
    mutating func keep(_ string: String, in slot: Int, from start: Int, length: Int) {
        guard let entries, let occupied else { return }
        let bit: UInt64 = 1 << UInt64(slot & 63)
        if occupied[slot >> 6] & bit != 0 {
            entries[slot] = Entry(offset: start, length: length, string: string)
        } else {
            (entries + slot).initialize(to: Entry(offset: start, length: length, string: string))
            occupied[slot >> 6] |= bit
        }
    }

    @inline(__always)
    private mutating func storage() -> (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<UInt64>) {
        if let entries, let occupied { return (entries, occupied) }
        let newEntries = UnsafeMutablePointer<Entry>.allocate(capacity: Self.slotCount)
        let newOccupied = UnsafeMutablePointer<UInt64>.allocate(capacity: Self.slotCount / 64)
        newOccupied.initialize(repeating: 0, count: Self.slotCount / 64)
        entries = newEntries
        occupied = newOccupied
        return (newEntries, newOccupied)
    }
}
