public import Foundation

/// Reads JSON (RFC 8259) into ``WidgetValue``s, keeping numbers exact.
///
/// The reader accepts exactly the JSON grammar: no comments, no trailing commas, no leading zeros, no
/// unescaped control characters in strings. Nesting is bounded by ``maximumDepth`` (``ValueLimits``'s,
/// the same for every parser) so that hostile input cannot exhaust the stack; a payload read with
/// ``read(_:limits:)`` is also bounded in its number of values. Invalid UTF-8 inside strings is replaced
/// with U+FFFD rather than rejected.
///
/// ```swift
/// let value = try JSONReader.read(Data(#"{"price": 0.10}"#.utf8))
/// ```
public enum JSONReader {
    /// The deepest nesting of arrays and objects accepted: ``ValueLimits/maximumDepth``.
    public static let maximumDepth = ValueLimits.maximumDepth
    /// The deepest nesting accepted in widgetd's own files (snapshots, state), which wrap values of up to
    /// ``maximumDepth`` in a few levels of their own: whatever widgetd wrote, it reads back.
    public static let savedFileDepth = ValueLimits.maximumDepth + ValueLimits.fileDepthAllowance

    /// Reads one JSON document, nested at most `maximumDepth` deep and holding at most `maximumValues`
    /// values (items, members and scalars together).
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem (with
    ///   ``JSONSyntaxError/exceededLimit`` set when it is a limit).
    public static func read(
        _ data: Data, maximumDepth: Int = JSONReader.maximumDepth, maximumValues: Int = .max
    ) throws(JSONSyntaxError) -> WidgetValue {
        let result: Result<WidgetValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            read(raw.bindMemory(to: UInt8.self), locations: nil, maximumDepth: maximumDepth, maximumValues: maximumValues)
        }
        return try result.get()
    }

    /// Reads a payload within `limits`: nested at most ``ValueLimits/maximumDepth`` deep, holding at most
    /// ``ValueLimits/maximumValues`` values.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem (with
    ///   ``JSONSyntaxError/exceededLimit`` set when it is a limit).
    public static func read(_ data: Data, limits: ValueLimits) throws(JSONSyntaxError) -> WidgetValue {
        try read(data, maximumValues: limits.maximumValues)
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
        locations: UnsafeMutablePointer<SourceMap>?,
        maximumDepth: Int = JSONReader.maximumDepth,
        maximumValues: Int = .max
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
        var scanner = Scanner(
            base: base, count: bytes.count, tracking: locations != nil, maximumDepth: maximumDepth, maximumValues: maximumValues)
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
