import Foundation
import Testing
import WidgetTestSupport

/// The README's "Writing a stage" shows the package `Examples/WritingAStage/` file by file, exactly: each
/// Swift block of the section is one of the package's files, named by its first line (`// Sources/…`,
/// or the tools version for `Package.swift`). CI builds, tests and runs that package
/// (`Examples/WritingAStage/ci.sh`), so the README's code is code that compiles in a package of its own.
struct ReadmeStageExampleTests {
    static let package = Widgetd.packageRoot.appendingPathComponent("Examples/WritingAStage")

    /// The Swift blocks of the README section `## title`, in order.
    static func swiftBlocks(ofSection title: String) throws -> [String] {
        let readme = try String(contentsOf: Widgetd.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "## \(title)") else { return [] }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        var blocks: [String] = []
        var block: [String]?
        for line in lines[start..<end] {
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
        let blocks = try Self.swiftBlocks(ofSection: "Writing a stage")
        let shown = blocks.map { Self.file(of: $0) }
        let files =
            ["Package.swift"]
            + (FileManager.default.enumerator(atPath: Self.package.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix(".build") && $0 != "Package.swift" }.sorted()
        #expect(shown.compactMap { $0 }.sorted() == files.sorted(), "the README's blocks show \(shown), the package has \(files)")
        for (block, name) in zip(blocks, shown) {
            guard let name else {
                Issue.record("a Swift block of \"Writing a stage\" does not name its file on its first line:\n\(block)")
                continue
            }
            let text = try String(contentsOf: Self.package.appendingPathComponent(name), encoding: .utf8)
            #expect(block == text, "README.md shows \(name) otherwise than Examples/WritingAStage/\(name)")
        }
    }
}
