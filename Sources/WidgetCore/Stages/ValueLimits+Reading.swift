public import Foundation
public import WidgetJSON

extension ValueLimits {
    /// Reads a JSON payload within these limits.
    ///
    /// - Parameters:
    ///   - data: The payload's bytes.
    ///   - what: The document, for messages: `the feed from https://…`.
    /// - Throws: A ``StageError`` naming the limit and its fix when the document passes one;
    ///   `JSONSyntaxError` when it is not valid JSON.
    public func readJSON(_ data: Data, _ what: @autoclosure () -> String) throws -> WidgetValue {
        do {
            return try JSONReader.read(data, limits: self)
        } catch {
            guard let limit = error.exceededLimit else { throw error }
            throw StageError(message(for: limit, what: what(), at: error.location))
        }
    }
}
