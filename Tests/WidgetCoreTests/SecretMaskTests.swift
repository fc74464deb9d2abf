import Foundation
import Testing
import WidgetCore
import WidgetLiquid

/// Masking comes before any cut, and a cut never leaves the start of a secret behind.
struct SecretMaskTests {
    static let secret = "ZQXJ-KVWQ-PXMY"

    /// Every piece of `secret` of `length` characters or more.
    static func pieces(of secret: String, length: Int = 4) -> [String] {
        let characters = Array(secret)
        var pieces: [String] = []
        for start in 0...(characters.count - length) {
            for end in (start + length)...characters.count { pieces.append(String(characters[start..<end])) }
        }
        return pieces
    }

    @Test func anExcerptWhoseCutSplitsASecretShowsNoPieceOfIt() {
        let mask = SecretMask(values: [Self.secret])
        for padding in 180...200 {
            let text = String(repeating: "a", count: padding) + Self.secret + " and more"
            let excerpt = mask.excerpt(text, limit: 200)
            #expect(excerpt.count <= 201, "\(padding)")
            for piece in Self.pieces(of: Self.secret) { #expect(!excerpt.contains(piece), "\(padding): \(excerpt)") }
            // Masked whole before the cut: what fits shows `***`, and nothing else of the text is lost.
            if padding + 3 <= 200 { #expect(excerpt.hasPrefix(String(repeating: "a", count: padding) + "***"), "\(padding)") }
        }
    }

    @Test func aTextCutBeforeTheMaskLosesTheStartOfASecretAtItsEnd() {
        let mask = SecretMask(values: [Self.secret])
        #expect(mask.maskCut("error: ZQXJ-K") == "error: ")
        #expect(mask.maskCut("error: Z") == "error: ")
        // Any form: URL-encoded, base64.
        let base64 = Data(Self.secret.utf8).base64EncodedString()
        #expect(mask.maskCut("key=" + base64.prefix(7)) == "key=")
        #expect(mask.maskCut("error: ZQXJ-KVWQ-PXMY, ZQX") == "error: ***, ")
        // An ending that starts no secret is kept.
        #expect(mask.maskCut("error: QXJ") == "error: QXJ")
        #expect(SecretMask().maskCut("error: ZQXJ") == "error: ZQXJ")
    }

    @Test func aShortTextIsMaskedAndNotCut() {
        let mask = SecretMask(values: [Self.secret, "ab"])
        #expect(mask.excerpt("ab ZQXJ-KVWQ-PXMY", limit: 200) == "*** ***")
        #expect(mask.excerpt("ZQXJ-KVWQ-PXMY", limit: 5) == "***")
    }

    @Test func theStoreAndADefinitionMaskWithTheSameMask() {
        let secrets = SecretStore(environment: ["TOKEN": "p@ss/wörd", "SHLVL": "1"])
        let uses = [Template.SecretUse(namespace: .env, name: .literal("TOKEN"))]
        let text = "x p@ss/wörd p%40ss%2Fw%C3%B6rd"
        #expect(secrets.mask(uses: uses).apply(text) == secrets.mask(text, uses: uses))
        #expect(secrets.mask(text, uses: uses) == "x *** ***")
        #expect(secrets.mask(uses: uses).excerpt("x p%40ss%2Fw%C3%B6rd", limit: 8) == "x ***")
        #expect(secrets.redactionMask.apply("SHLVL 1 p@ss/wörd") == "SHLVL 1 ***")
    }
}
