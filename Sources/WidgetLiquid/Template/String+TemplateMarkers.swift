extension String {
    /// Whether the text holds `marker`, compared byte for byte (faster than Foundation's `contains`, and
    /// without its locale rules).
    package func containsBytes(_ marker: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        guard let first = needle.first else { return true }
        var utf8 = self.utf8
        if let found = utf8.withContiguousStorageIfAvailable({ haystack in Self.search(haystack, needle, first) }) {
            return found
        }
        let copy = Array(utf8)
        utf8 = "".utf8
        return copy.withUnsafeBufferPointer { Self.search($0, needle, first) }
    }

    private static func search(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, _ first: UInt8) -> Bool {
        guard haystack.count >= needle.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return true }
            }
            index += 1
        }
        return false
    }

    /// Whether the text has template markup, `{{` or `{%`.
    public var hasTemplateMarkup: Bool {
        containsBytes("{{") || containsBytes("{%")
    }
}
