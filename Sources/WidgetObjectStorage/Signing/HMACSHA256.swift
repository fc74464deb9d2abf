public import Foundation
import WidgetStages

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4), on the project's own `SHA256`: what AWS Signature Version 4
/// chains to derive its signing key and sign a request.
///
/// ```swift
/// let tag = HMACSHA256.authenticationCode(for: Data("what do ya want for nothing?".utf8), key: Data("Jefe".utf8))
/// HMACSHA256.hex(tag)   // "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
/// ```
public enum HMACSHA256 {
    /// SHA-256's block size, in bytes: a longer key is hashed first, a shorter one padded with zeros.
    static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: Data, key: Data) -> [UInt8] {
        authenticationCode(for: message, key: [UInt8](key))
    }

    /// The 32-byte authentication code of `message` under `key` (bytes).
    public static func authenticationCode(for message: Data, key: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.digest(of: Data(key)) : key
        block.append(contentsOf: repeatElement(0, count: blockSize - block.count))
        var inner = Data(capacity: blockSize + message.count)
        inner.append(contentsOf: block.map { $0 ^ 0x36 })
        inner.append(message)
        var outer = Data(capacity: blockSize + 32)
        outer.append(contentsOf: block.map { $0 ^ 0x5c })
        outer.append(contentsOf: SHA256.digest(of: inner))
        return SHA256.digest(of: outer)
    }

    /// `bytes` as lowercase hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
