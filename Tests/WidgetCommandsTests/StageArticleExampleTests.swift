import Foundation
import Testing
import WidgetTestSupport

/// The article "Writing a stage" (`WritingStages.md` in WidgetCommands' catalog) shows the package
/// `Examples/WritingAStage/` file by file, exactly: each Swift block of the article is one of the package's files, named by its first line (`// Sources/…`,
/// or the tools version for `Package.swift`). CI builds, tests and runs that package
/// (`Examples/WritingAStage/ci.sh`), so the article's code is code that compiles in a package of its own.
struct StageArticleExampleTests {
    static let package = Widgetd.packageRoot.appendingPathComponent("Examples/WritingAStage")

    static let article = "Sources/WidgetCommands/WidgetCommands.docc/WritingStages.md"

    /// The Swift blocks of the article, in order.
    static func swiftBlocks() throws -> [String] {
        let text = try String(contentsOf: Widgetd.packageRoot.appendingPathComponent(article), encoding: .utf8)
        var blocks: [String] = []
        var block: [String]?
        for line in text.components(separatedBy: "\n") {
            if block == nil, line == "```swift" {
                block = []
            } else if let open = block, line == "```" {
                blocks.append(open.joined(separator: "\n") + "\n")
                block = nil
            } else {
                block?.append(line)
            }
        }
        return blocks
    }

    /// The package file a block shows, from its first line.
    static func file(of block: String) -> String? {
        let first = block.prefix { $0 != "\n" }
        if first.hasPrefix("// swift-tools-version") { return "Package.swift" }
        guard first.hasPrefix("// ") else { return nil }
        return String(first.dropFirst(3))
    }

    @Test func everySwiftFileOfTheExamplePackageIsShownExactlyInWritingAStage() throws {
        let blocks = try Self.swiftBlocks()
        let shown = blocks.map { Self.file(of: $0) }
        let files =
            ["Package.swift"]
            + (FileManager.default.enumerator(atPath: Self.package.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix(".build") && $0 != "Package.swift" }.sorted()
        #expect(shown.compactMap { $0 }.sorted() == files.sorted(), "the article's blocks show \(shown), the package has \(files)")
        for (block, name) in zip(blocks, shown) {
            guard let name else {
                Issue.record("a Swift block of \(Self.article) does not name its file on its first line:\n\(block)")
                continue
            }
            let text = try String(contentsOf: Self.package.appendingPathComponent(name), encoding: .utf8)
            #expect(block == text, "\(Self.article) shows \(name) otherwise than Examples/WritingAStage/\(name)")
        }
    }
}
