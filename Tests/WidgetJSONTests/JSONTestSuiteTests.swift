import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport

/// Runs Nicolas Seriot's JSONTestSuite (`test_parsing/`): `y_` files must be accepted, `n_` files rejected,
/// `i_` files may go either way; none may crash the reader.
struct JSONTestSuiteTests {
    @Test func readerAgreesWithEveryFileOfTheSuite() throws {
        let folder = Oracles.url("json-test-suite/test_parsing")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }
            .sorted()
        #expect(names.count > 300, "The suite should hold over 300 files; found \(names.count) in \(folder.path).")

        var accepted: [Character: Int] = [:]
        var rejected: [Character: Int] = [:]
        var wrong: [String] = []
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let expectation = name.first!
            let outcome: String?
            do {
                _ = try JSONReader.read(data)
                accepted[expectation, default: 0] += 1
                outcome = expectation == "n" ? "accepted, but it is not JSON" : nil
            } catch {
                rejected[expectation, default: 0] += 1
                outcome = expectation == "y" ? "rejected (\(error)), but it is valid JSON" : nil
            }
            if let outcome { wrong.append("\(name): \(outcome)") }
        }

        func count(_ kind: Character) -> Int { accepted[kind, default: 0] + rejected[kind, default: 0] }
        print(
            "JSONTestSuite: y_ \(accepted["y", default: 0])/\(count("y")) accepted, "
                + "n_ \(rejected["n", default: 0])/\(count("n")) rejected, "
                + "i_ \(count("i")) ran (\(accepted["i", default: 0]) accepted, \(rejected["i", default: 0]) rejected)"
        )
        #expect(wrong.isEmpty, "Files read wrongly:\n\(wrong.joined(separator: "\n"))")
    }

    @Test func everyValidFileSurvivesAWriteAndReadBack() throws {
        let folder = Oracles.url("json-test-suite/test_parsing")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("y_") }
        #expect(!names.isEmpty)
        for name in names.sorted() {
            let value = try JSONReader.read(Data(contentsOf: folder.appendingPathComponent(name)))
            for style in [JSONWriter.Style.compact, .pretty] {
                let again = try JSONReader.read(JSONWriter.data(value, style: style))
                #expect(again == value, "\(name) changed after a \(style) write and read back.")
            }
        }
    }
}
