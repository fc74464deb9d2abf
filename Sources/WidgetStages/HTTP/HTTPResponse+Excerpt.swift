import Foundation
public import WidgetCore
import WidgetLiquid

extension HTTPResponse {
    /// How many characters of a body ``bodyExcerpt(masking:)`` keeps.
    public static let excerptLength = 200

    /// The first characters of a text body on one line, for an error message: what an API says when it
    /// refuses a request (`{"error": "unknown parameter \"q\""}`), as `curl` shows it, with the secrets
    /// of `mask` masked.
    ///
    /// The body counts as text when its content type says so (`text/*`, JSON, XML, form data,
    /// JavaScript) or, without one, when it decodes as text with no control characters. An HTML page is
    /// read as its plain text (`502 Bad Gateway nginx`). Runs of whitespace become one space, and the
    /// text is cut at ``excerptLength`` characters, with `…` where it was cut. `nil` for an empty body,
    /// a binary one, or one that is only markup or whitespace.
    ///
    /// The body may hold what the request sent (a server that repeats a bad API key), so the request's
    /// secrets are masked before each cut, and an ending a cut left that could be the start of a secret
    /// is dropped (`SecretMask.excerpt(_:limit:)`): no piece of a secret is quoted, wherever the cut
    /// falls.
    public func bodyExcerpt(masking mask: SecretMask) -> String? {
        guard !body.isEmpty, Self.isText(contentType) ?? true else { return nil }
        let isHTML = contentType == "text/html" || contentType == "application/xhtml+xml"
        // An error page's text may follow a long head; anything else needs no more than its first bytes.
        let limit = isHTML ? 65_536 : Self.excerptLength * 4 + 4
        let cut = body.count > limit
        var text = Payload(data: body.prefix(limit), charset: charset, origin: "").text
        if cut, text.last == "\u{FFFD}" { text.removeLast() }
        // Masked before anything else: whitespace is folded and markup dropped below, which could hide a
        // secret written across them.
        text = cut ? mask.maskCut(text) : mask.apply(text)
        if contentType == nil {
            // Without a declared type, bytes that are not UTF-8 text are taken for binary.
            let binary = text.unicodeScalars.contains { scalar in
                scalar == "\u{FFFD}" || (scalar.value < 0x20 && !["\t", "\n", "\r"].contains(scalar)) || scalar.value == 0x7F
            }
            if binary { return nil }
        }
        if isHTML || (contentType == nil && HTMLText.looksLikeHTML(text)) {
            // Entities are decoded here: a secret written with them shows only now.
            text = HTMLText.plainText(text)
            text = cut ? mask.maskCut(text) : mask.apply(text)
        }
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        if words.count <= Self.excerptLength, cut, !isHTML { return mask.maskCut(words) + "…" }
        return mask.excerpt(words, limit: Self.excerptLength)
    }

    /// Whether a body of the media type `type` is text; nil when no type was declared.
    static func isText(_ type: String?) -> Bool? {
        guard let type else { return nil }
        if type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml") { return true }
        return [
            "application/json", "application/xml", "application/x-www-form-urlencoded", "application/javascript",
            "application/ecmascript", "application/x-ndjson",
        ].contains(type)
    }
}
