import Foundation
import WidgetLiquid

/// The secrets to keep out of a text, and the one way to shorten a text that may hold them: mask first,
/// then cut, then drop what the cut left of a secret.
///
/// A secret is masked as written and in every form the secret-keeping filters give it (URL-encoded,
/// base64, HTML-escaped), each occurrence replaced by `***`. Masking after a cut would miss a secret the
/// cut split in two, so every excerpt of a text that may hold a secret — an error body quoted in a
/// message, a value shown by a trace — goes through ``excerpt(_:limit:)``, which masks the whole text
/// before it cuts it and then drops an ending that could be the start of a secret.
///
/// ```swift
/// let mask = SecretMask(values: ["s3cr3t-token"])
/// mask.apply("key=s3cr3t-token")              // "key=***"
/// mask.excerpt("xxxxxx s3cr3t-token", limit: 10)  // "xxxxxx ***…"
/// mask.maskCut("error: s3cr3")                // "error: " (the start of a secret is dropped)
/// ```
public struct SecretMask: Sendable, Hashable {
    /// What replaces a secret.
    public static let replacement = "***"

    /// The forms masked, longest first, so that a secret inside another is not masked half.
    private var forms: [String]

    /// A mask that hides nothing.
    public init() {
        forms = []
    }

    /// A mask for `values` (empty values are ignored), in every form the secret-keeping filters give them.
    public init(values: some Sequence<String>) {
        var forms: Set<String> = []
        for value in values where !value.isEmpty {
            forms.insert(value)
            forms.insert(URLText.encode(value))
            forms.insert(HTMLText.escape(value))
            let base64 = Data(value.utf8).base64EncodedString()
            forms.insert(base64)
            forms.insert(base64.replacing("+", with: "-").replacing("/", with: "_"))
        }
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// This mask, hiding `values` too (in every form, as ``init(values:)`` takes them): the tokens a
    /// stage obtained itself beside the secrets its templates read.
    public func adding(values: some Sequence<String>) -> SecretMask {
        var mask = SecretMask(values: values)
        mask.forms = Set(forms + mask.forms).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        return mask
    }

    /// Whether the mask hides nothing.
    public var isEmpty: Bool { forms.isEmpty }

    /// `text` with every occurrence of a secret, in any of its forms, replaced by `***`.
    public func apply(_ text: String) -> String {
        var result = text
        for form in forms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: Self.replacement)
        }
        return result
    }

    /// `text`, which was cut from a longer text after its end, masked (see ``apply(_:)``) and without an
    /// ending that is the start of a secret (any of its forms, however short that start): the rest of the
    /// secret was cut off, so masking alone would let its first characters through.
    public func maskCut(_ text: String) -> String {
        var result = apply(text)
        guard !forms.isEmpty, !result.isEmpty else { return result }
        // The longest ending that begins some form (shorter than the whole form: a whole one is masked).
        var longest = 0
        for form in forms {
            var length = min(form.count - 1, result.count)
            while length > longest {
                if result.hasSuffix(form.prefix(length)) {
                    longest = length
                    break
                }
                length -= 1
            }
        }
        result.removeLast(longest)
        return result
    }

    /// `text` masked, then cut to its first `limit` characters with `…` where it was cut (the cut part
    /// never starts a secret: see ``maskCut(_:)``); `text` masked when it is no longer than `limit`.
    ///
    /// Every excerpt of a text that may hold a secret is made here, so no cut can split a secret before
    /// it is masked.
    public func excerpt(_ text: String, limit: Int) -> String {
        let masked = apply(text)
        guard masked.count > limit else { return masked }
        return maskCut(String(masked.prefix(max(0, limit)))) + "…"
    }
}
