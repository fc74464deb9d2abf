/// What a source keeps to ask next time whether its data changed (HTTP's `ETag` and `Last-Modified`),
/// with the request they were earned by and the parser that read the data they describe.
///
/// A fetcher sets ``etag``, ``lastModified`` and ``request`` on the payloads it returns; the pipeline keeps
/// them, with ``parser``, beside the parsed value, and hands them back in ``StageContext/validators`` on
/// the next refresh. A fetcher that sends them and hears "not modified" returns a payload with
/// ``Payload/notModified`` set, and the pipeline reuses the value without parsing.
public struct FetchValidators: Sendable, Hashable {
    /// The entity tag, as the server wrote it (quotes included): sent back as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` date, as the server wrote it: sent back as `If-Modified-Since`.
    public var lastModified: String?
    /// The fetcher's fingerprint of the request the validators belong to: another request (a URL that
    /// changed) must not send them.
    public var request: String?
    /// The parser (type and options) that read the payload: another parser's value is not reused.
    public var parser: String?

    /// Creates validators from their parts; with no arguments, empty validators that ask nothing.
    public init(etag: String? = nil, lastModified: String? = nil, request: String? = nil, parser: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.request = request
        self.parser = parser
    }

    /// Whether there is nothing to ask with: neither an entity tag nor a date.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
