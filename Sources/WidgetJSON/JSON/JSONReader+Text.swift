// MARK: - Text

extension JSONReader {
    /// Eight bytes at `pointer` as one word whose lowest byte is the first, whatever the machine's byte order.
    @inline(__always)
    static func loadWord(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Whether the `count` bytes at `start` (at least one, with sixteen readable, and eight more past
    /// them) are all spaces.
    @inline(__always)
    static func areSpaces(_ start: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let spaces: UInt64 = 0x2020_2020_2020_2020
        var start = start
        var count = count
        // Deep indentation: whole words of spaces first.
        while count > 16 {
            guard loadWord(start) == spaces else { return false }
            start += 8
            count -= 8
        }
        let first = loadWord(start) ^ spaces
        if count <= 8 { return count == 8 ? first == 0 : first & ((1 << UInt64(count &* 8)) &- 1) == 0 }
        let second = loadWord(start + 8) ^ spaces
        return first == 0 && (count == 16 ? second == 0 : second & ((1 << UInt64((count &- 8) &* 8)) &- 1) == 0)
    }

    /// The string of the `count` escape-free bytes at `start`, checked as UTF-8 only when they are not all
    /// ASCII; invalid UTF-8 becomes U+FFFD.
    @inline(__always)
    static func plainString(_ start: UnsafePointer<UInt8>, count: Int, isASCII: Bool) -> String {
        let text = UnsafeBufferPointer(start: start, count: count)
        if isASCII || isValidUTF8(text) { return String(checkedUTF8: text, isASCII: isASCII) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether none of the four-bit values in the bytes of `nibbles` that `tops` marks (by their top
    /// bits) is 0 or D. The values are the low halves of three-byte leads, every other bit clear: the
    /// leads E0 and ED, whose second bytes are restricted, have 0 and D.
    @inline(__always)
    static func hasNoE0OrEDLead(_ nibbles: UInt64, tops: UInt64) -> Bool {
        // A byte of at most 0x0F plus 0x7F sets its top bit exactly when it is not zero, and never carries.
        let add: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return (nibbles &+ add) & ((nibbles ^ 0x0D0D_0D0D_0D0D_0D0D) &+ add) & tops == tops
    }

    /// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
    /// U+10FFFF), the same rule by which `String(decoding:as:)` repairs.
    static func isValidUTF8(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        let count = text.count
        var index = 0
        // While four bytes can be read, a sequence's lead and continuation bytes are checked together
        // against the bit patterns of its length (lowest byte first), then the ranges RFC 3629 excludes.
        while index + 4 <= count {
            let word = UInt32(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt32.self))
            let lead = UInt8(truncatingIfNeeded: word)
            let second = UInt8(truncatingIfNeeded: word >> 8)
            if lead < 0x80 {
                index += 1
                // Runs of ASCII eight bytes at a time.
                while index + 8 <= count, loadWord(base + index) & 0x8080_8080_8080_8080 == 0 { index += 8 }
            } else if word & 0xC0_C0F0 == 0x80_80E0 {
                // 1110xxxx 10xxxxxx 10xxxxxx, not overlong (E0 80...9F) nor a surrogate (ED A0...BF).
                if lead == 0xE0 || lead == 0xED {
                    guard lead == 0xE0 ? second >= 0xA0 : second <= 0x9F else { return false }
                }
                index += 3
                // Runs of them (most CJK text) four at a time, then two, leaving E0 and ED leads to the
                // check above.
                while index + 14 <= count {
                    let low = loadWord(base + index)
                    let high = loadWord(base + index + 6)
                    guard low & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0, high & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0
                    else { break }
                    let leads = (low & 0x0F00_000F) | (high & 0x0F00_000F) << 32
                    guard hasNoE0OrEDLead(leads, tops: 0x8000_0080_8000_0080) else { break }
                    index += 12
                }
                while index + 8 <= count {
                    let pair = loadWord(base + index)
                    guard pair & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0, hasNoE0OrEDLead(pair & 0x0F00_000F, tops: 0x8000_0080)
                    else {
                        break
                    }
                    index += 6
                }
            } else if word & 0xC0E0 == 0x80C0 {
                // 110xxxxx 10xxxxxx, not overlong (C0, C1).
                guard lead >= 0xC2 else { return false }
                index += 2
            } else if word & 0xC0C0_C0F8 == 0x8080_80F0 {
                // 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx, not overlong (F0 80...8F) nor above U+10FFFF.
                guard lead <= 0xF4, lead != 0xF0 || second >= 0x90, lead != 0xF4 || second <= 0x8F else {
                    return false
                }
                index += 4
            } else {
                return false
            }
        }
        // The last bytes one at a time.
        while index < count {
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            switch lead {
            case 0xC2...0xDF:
                guard index + 1 < count, base[index + 1] & 0xC0 == 0x80 else { return false }
                index += 2
            case 0xE0...0xEF:
                guard index + 2 < count else { return false }
                let second = base[index + 1]
                let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                guard second >= low, second <= high, base[index + 2] & 0xC0 == 0x80 else { return false }
                index += 3
            default:
                // Four-byte sequences cannot fit in the last three bytes.
                return false
            }
        }
        return true
    }
}

extension String {
    /// A string of the UTF-8 `text`, which the caller has checked to be well-formed (`isASCII` when every
    /// byte is below 0x80), made without checking it again where the standard library allows that.
    @inline(__always)
    package init(checkedUTF8 text: UnsafeBufferPointer<UInt8>, isASCII: Bool) {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            self = String(copying: UTF8Span(unchecked: text.span, isKnownASCII: isASCII))
        } else {
            self = String(decoding: text, as: UTF8.self)
        }
    }
}
