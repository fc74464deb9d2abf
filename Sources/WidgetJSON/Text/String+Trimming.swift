import Foundation

extension String {
    /// `trimmingCharacters(in: .whitespaces)`, answered without Foundation when the text starts and ends
    /// with an ASCII character that is not white space, and so has nothing to trim.
    package func trimmingFoundationWhitespace() -> String {
        hasPlainASCIIEnds ? self : trimmingCharacters(in: .whitespaces)
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, answered without Foundation when the text starts
    /// and ends with an ASCII character that is neither white space nor a line break.
    package func trimmingFoundationWhitespaceAndNewlines() -> String {
        hasPlainASCIIEnds ? self : trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the first and the last byte are ASCII and neither white space nor a line break (tab, line
    /// feed, vertical tab, form feed, carriage return, space): no character set Foundation trims with
    /// `whitespaces` or `whitespacesAndNewlines` holds them, so trimming leaves the text as it is.
    private var hasPlainASCIIEnds: Bool {
        let utf8 = self.utf8
        guard let first = utf8.first, let last = utf8.last else { return false }
        func plain(_ byte: UInt8) -> Bool { byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte) }
        return plain(first) && plain(last)
    }
}
