import Foundation
import Testing
import WidgetObjectStorage

/// RFC 4231's test cases for HMAC-SHA256.
struct HMACSHA256Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        var number: Int
        var key: [UInt8]
        var data: [UInt8]
        var expected: String
        /// Case 5 compares only the first 128 bits.
        var truncatedTo: Int?

        var testDescription: String { "RFC 4231 case \(number)" }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static let cases: [Case] = [
        Case(
            number: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Case(
            number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Case(
            number: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
            expected: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(
            number: 4, key: bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), data: [UInt8](repeating: 0xcd, count: 50),
            expected: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Case(
            number: 5, key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
            expected: "a3b6167473100ee06e0c796c2955552b", truncatedTo: 16),
        Case(
            number: 6, key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(
            number: 7, key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            expected: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: cases)
    func matchesRFC4231(_ testCase: Case) {
        let code = HMACSHA256.authenticationCode(for: Data(testCase.data), key: testCase.key)
        #expect(code.count == 32)
        let hex = HMACSHA256.hex(Array(code.prefix(testCase.truncatedTo ?? 32)))
        #expect(hex == testCase.expected)
    }

    @Test func aKeyAsDataGivesTheSameCodeAsItsBytes() {
        let message = Data("what do ya want for nothing?".utf8)
        #expect(
            HMACSHA256.authenticationCode(for: message, key: Data("Jefe".utf8))
                == HMACSHA256.authenticationCode(for: message, key: Array("Jefe".utf8)))
    }
}
