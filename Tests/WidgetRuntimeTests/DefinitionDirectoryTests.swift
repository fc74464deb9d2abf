import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTestSupport

/// Loading a folder reads its files on several cores; what it gives must not depend on that.
struct DefinitionDirectoryTests {
    @Test func aLargeFolderLoadsInFileOrderWithTheLaterOfTwoEqualIDsReported() throws {
        let folder = try TemporaryFolder()
        for index in 0..<60 {
            let name = String(format: "w%02d.json", index)
            let text: String
            switch index % 10 {
            case 3: text = #"{"source": {"path": "x.json"}, "staleAftr": "1h"}"#
            case 7: text = #"{"id": "shared", "source": {"path": "x.json"}}"#
            default: text = #"{"source": {"path": "x.json"}}"#
            }
            try folder.write("widgets.d/\(name)", text)
        }
        let directory = DefinitionDirectory(path: folder.file("widgets.d").path)
        let result = directory.load(reader: DefinitionReader(registry: .builtIn))
        let expectedIDs = (0..<60).filter { $0 % 10 != 3 && $0 % 10 != 7 }.map { String(format: "w%02d", $0) }
        #expect(result.widgets.map(\.id) == Array(expectedIDs.prefix(6)) + ["shared"] + expectedIDs.dropFirst(6))
        #expect(result.files == (0..<60).map { directory.path + "/" + String(format: "w%02d.json", $0) })
        let problems = result.diagnostics.map { ($0.file as NSString).lastPathComponent + " " + $0.message }
        var expected: [String] = []
        for index in 0..<60 where index % 10 == 3 || (index % 10 == 7 && index > 7) {
            let name = String(format: "w%02d.json", index)
            expected.append(
                index % 10 == 3
                    ? "\(name) unknown key 'staleAftr'; did you mean 'staleAfter'?"
                    : #"\#(name) the widget id "shared" is already used by \#(directory.path)/w07.json; rename this file or set a different "id""#
            )
        }
        #expect(problems == expected)
        #expect(result.failedFiles.count == expected.count)
        // Loading again gives the same result, whichever core read which file.
        let again = directory.load(reader: DefinitionReader(registry: .builtIn))
        #expect(again.widgets.map(\.id) == result.widgets.map(\.id))
        #expect(again.diagnostics == result.diagnostics)
    }
}
