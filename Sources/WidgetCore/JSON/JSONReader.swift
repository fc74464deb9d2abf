public import Foundation

/// Reads JSON (RFC 8259) into ``WidgetValue``s, keeping numbers exact.
///
/// The reader accepts exactly the JSON grammar: no comments, no trailing commas, no leading zeros, no
/// unescaped control characters in strings. Nesting is bounded by ``maximumDepth`` so that hostile input
/// cannot exhaust the stack. Invalid UTF-8 inside strings is replaced with U+FFFD rather than rejected.
///
/// ```swift
/// let value = try JSONReader.read(Data(#"{"price": 0.10}"#.utf8))
/// ```
public enum JSONReader {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Reads one JSON document.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func read(_ data: Data) throws(JSONSyntaxError) -> WidgetValue {
        let result: Result<WidgetValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            read(raw.bindMemory(to: UInt8.self), locations: nil)
        }
        return try result.get()
    }

    /// Reads one JSON document from text.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func read(_ text: String) throws(JSONSyntaxError) -> WidgetValue {
        var text = text
        let result: Result<WidgetValue, JSONSyntaxError> = text.withUTF8 { bytes in
            read(bytes, locations: nil)
        }
        return try result.get()
    }

    /// Reads one JSON document and records where every value and key starts, for error messages that
    /// point into the file.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func readWithLocations(_ data: Data) throws(JSONSyntaxError) -> (WidgetValue, SourceMap) {
        var map = SourceMap()
        let result: Result<WidgetValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            read(raw.bindMemory(to: UInt8.self), locations: &map)
        }
        return (try result.get(), map)
    }

    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>,
        locations: UnsafeMutablePointer<SourceMap>?
    ) -> Result<WidgetValue, JSONSyntaxError> {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return .failure(
                JSONSyntaxError(
                    location: SourceLocation(line: 1, column: 1),
                    offset: 0,
                    reason: "unexpected end of the document; expected a value"
                )
            )
        }
        var scanner = Scanner(base: base, count: bytes.count, tracking: locations != nil)
        do throws(JSONSyntaxError) {
            scanner.skipByteOrderMark()
            scanner.skipWhitespace()
            let value = try scanner.readValue(depth: 0)
            scanner.skipWhitespace()
            if scanner.position < scanner.count {
                throw scanner.error("unexpected text after the end of the document")
            }
            if let locations { locations.pointee = scanner.map }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}
