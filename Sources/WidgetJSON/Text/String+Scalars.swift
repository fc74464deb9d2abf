extension String {
    /// The text of `scalars`, encoded in one pass: a parser that walks an array of scalars makes its
    /// names and literals with this rather than by appending scalar after scalar, which checks and grows
    /// the string at every step.
    package init(scalars: ArraySlice<Unicode.Scalar>) {
        var count = 0
        for scalar in scalars { count += UTF8.width(scalar) }
        self.init(unsafeUninitializedCapacity: count) { buffer in
            var written = 0
            for scalar in scalars {
                if scalar.isASCII {
                    buffer[written] = UInt8(truncatingIfNeeded: scalar.value)
                    written += 1
                } else {
                    UTF8.encode(scalar) { unit in
                        buffer[written] = unit
                        written += 1
                    }
                }
            }
            return written
        }
    }
}
