/// Writes gzip (RFC 1952) data without a compression library: one DEFLATE block with the fixed Huffman
/// codes of RFC 1951, whose only matches are runs of one byte (distance 1).
///
/// That is all a test server needs: a run of a million `x` costs about 6 kB, so a "gzip bomb" many times
/// smaller than what it inflates to is cheap to make, for any size, in time that grows with the output,
/// not the input (the CRC of a run is computed by squaring, as zlib's `crc32_combine` does).
///
/// ```swift
/// var gzip = Gzip()
/// gzip.append(Array(#"{"padding": ""#.utf8))
/// gzip.appendRun(of: UInt8(ascii: "x"), count: 50_000_000)
/// gzip.append(Array(#""}"#.utf8))
/// let body = gzip.finish()   // about 300 kB
/// ```
struct Gzip {
    private var bits = BitWriter()
    private var crc: UInt32 = 0
    private var size = 0

    init() {
        // The header (no name, no time), then the block header: the last block, fixed Huffman codes.
        bits.bytes = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        bits.write(1, count: 1)
        bits.write(1, count: 2)
    }

    /// Appends `bytes`, runs of four or more equal bytes as matches.
    mutating func append(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            var end = index + 1
            while end < bytes.count, bytes[end] == bytes[index] { end += 1 }
            if end - index >= 4 {
                appendRun(of: bytes[index], count: end - index)
            } else {
                for byte in bytes[index..<end] { literal(byte) }
                crc = Self.crc32(bytes[index..<end], startingAt: crc)
                size += end - index
            }
            index = end
        }
    }

    /// Appends `count` copies of `byte`.
    mutating func appendRun(of byte: UInt8, count: Int) {
        guard count > 0 else { return }
        literal(byte)
        var remaining = count - 1
        while remaining >= 3 {
            let length = min(remaining, 258)
            match(length: length)
            remaining -= length
        }
        for _ in 0..<remaining { literal(byte) }
        crc = Self.crc32Combine(crc, Self.crc32OfRun(byte, count: count), count)
        size += count
    }

    /// The gzip data: the block's end, the CRC-32 and the size.
    mutating func finish() -> [UInt8] {
        symbol(256)
        bits.flush()
        for value in [crc, UInt32(truncatingIfNeeded: size)] {
            for shift in stride(from: 0, to: 32, by: 8) { bits.bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        return bits.bytes
    }

    // MARK: - DEFLATE with the fixed codes

    private mutating func literal(_ byte: UInt8) {
        symbol(Int(byte))
    }

    /// The bases of the length symbols 257 to 285 and their extra bits.
    private static let lengthBases = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]

    /// A copy of the previous byte `length` times (3 to 258): a length symbol, then distance code 0.
    private mutating func match(length: Int) {
        let index = Self.lengthBases.lastIndex { $0 <= length }!
        symbol(257 + index)
        bits.write(UInt32(length - Self.lengthBases[index]), count: Self.lengthExtraBits[index])
        bits.writeReversed(0, count: 5)
    }

    /// A literal/length symbol in the fixed code of RFC 1951, section 3.2.6.
    private mutating func symbol(_ value: Int) {
        switch value {
        case 0...143: bits.writeReversed(UInt32(0x30 + value), count: 8)
        case 144...255: bits.writeReversed(UInt32(0x190 + value - 144), count: 9)
        case 256...279: bits.writeReversed(UInt32(value - 256), count: 7)
        default: bits.writeReversed(UInt32(0xC0 + value - 280), count: 8)
        }
    }

    /// Bits packed from the least significant end of each byte, as DEFLATE packs them.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var pending: UInt32 = 0
        private var pendingCount = 0

        /// `value`'s low `count` bits, least significant first (extra bits, header fields).
        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count { push((value >> UInt32(bit)) & 1) }
        }

        /// `code`'s low `count` bits, most significant first (Huffman codes).
        mutating func writeReversed(_ code: UInt32, count: Int) {
            for bit in stride(from: count - 1, through: 0, by: -1) { push((code >> UInt32(bit)) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            pending |= bit << UInt32(pendingCount)
            pendingCount += 1
            if pendingCount == 8 {
                bytes.append(UInt8(pending))
                pending = 0
                pendingCount = 0
            }
        }

        mutating func flush() {
            if pendingCount > 0 { bytes.append(UInt8(pending)) }
            pending = 0
            pendingCount = 0
        }
    }

    // MARK: - CRC-32

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The CRC-32 of `bytes` following data whose CRC-32 is `crc`.
    static func crc32(_ bytes: some Sequence<UInt8>, startingAt crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        return ~value
    }

    /// The CRC-32 of `count` copies of `byte`, by doubling.
    static func crc32OfRun(_ byte: UInt8, count: Int) -> UInt32 {
        var result: UInt32 = 0
        var power = crc32([byte])
        var powerLength = 1
        var remaining = count
        while remaining > 0 {
            if remaining & 1 == 1 {
                result = crc32Combine(result, power, powerLength)
            }
            remaining >>= 1
            if remaining > 0 {
                power = crc32Combine(power, power, powerLength)
                powerLength *= 2
            }
        }
        return result
    }

    /// The CRC-32 of two pieces of data put together, from their CRC-32s and the second one's length
    /// (zlib's `crc32_combine`: the first CRC advanced over `length` zero bytes by matrix squaring).
    static func crc32Combine(_ first: UInt32, _ second: UInt32, _ length: Int) -> UInt32 {
        guard length > 0 else { return first }
        func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var sum: UInt32 = 0
            var vector = vector
            var index = 0
            while vector != 0 {
                if vector & 1 == 1 { sum ^= matrix[index] }
                vector >>= 1
                index += 1
            }
            return sum
        }
        func square(_ matrix: [UInt32]) -> [UInt32] {
            matrix.map { times(matrix, $0) }
        }
        // The operator for one zero bit, then for two and four.
        var odd: [UInt32] = [0xEDB8_8320] + (0..<31).map { UInt32(1) << UInt32($0) }
        var even = square(odd)
        odd = square(even)
        var crc = first
        var remaining = length
        repeat {
            even = square(odd)
            if remaining & 1 == 1 { crc = times(even, crc) }
            remaining >>= 1
            if remaining == 0 { break }
            odd = square(even)
            if remaining & 1 == 1 { crc = times(odd, crc) }
            remaining >>= 1
        } while remaining != 0
        return crc ^ second
    }
}
