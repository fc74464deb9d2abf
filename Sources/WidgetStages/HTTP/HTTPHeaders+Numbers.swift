extension HTTPHeaders {
    /// The largest delta-seconds value a header may give: 2³¹ s (about 68 years). RFC 9111 §1.2.2 asks a
    /// cache to read any larger number as this one, so no header can overflow arithmetic on it.
    package static let greatestDeltaSeconds = 2_147_483_648

    /// `text` read as RFC 9111 delta-seconds (`Cache-Control: max-age`, `Age`, `Retry-After`): ASCII digits
    /// only, surrounding spaces ignored; a value past ``greatestDeltaSeconds`` is that value. `nil` for
    /// anything else: a sign (`-1`, `+5`), a fraction, an exponent, `NaN`, an empty value.
    ///
    /// ```swift
    /// HTTPHeaders.deltaSeconds("120")                    // 120
    /// HTTPHeaders.deltaSeconds("99999999999999999999")   // 2147483648
    /// HTTPHeaders.deltaSeconds("-9223372036854775808")   // nil
    /// ```
    package static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        guard let value = digits(text) else { return nil }
        return Swift.min(value, greatestDeltaSeconds)
    }

    /// `text` read as a `Content-Length`: ASCII digits only, surrounding spaces ignored; `nil` for anything
    /// else (a sign, a fraction); a number past `Int64.max` is `Int64.max`, over every body cap.
    package static func contentLength(_ text: some StringProtocol) -> Int64? {
        digits(text).map(Int64.init)
    }

    /// The non-negative integer `text` spells in ASCII digits (spaces and tabs around it ignored), stopping
    /// at `Int.max`: any longer run of digits gives `Int.max`, never an overflow.
    private static func digits(_ text: some StringProtocol) -> Int? {
        var value = 0
        var count = 0
        var trailing = false
        for byte in text.utf8 {
            if byte == 0x20 || byte == 0x09 {
                if count > 0 { trailing = true }
                continue
            }
            guard !trailing, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            count += 1
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? .max : sum
        }
        return count > 0 ? value : nil
    }
}
