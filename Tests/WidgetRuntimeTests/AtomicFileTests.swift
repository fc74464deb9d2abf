import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetRuntime

struct AtomicFileTests {
    @Test func writeReplacesTheWholeContent() throws {
        let folder = try TemporaryFolder()
        let target = folder.file("jotd.json")
        try AtomicFile.write(Data("{\"text\": \"a much longer first version\"}\n".utf8), to: target)
        try AtomicFile.write(Data("{}\n".utf8), to: target)
        #expect(try folder.read("jotd.json") == "{}\n")
        #expect(folder.names() == ["jotd.json"])
    }

    @Test func replacedFileIsWorldReadableEvenWhenTheOldOneWasPrivate() throws {
        let folder = try TemporaryFolder()
        let target = try folder.write("jotd.json", "old")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
        try AtomicFile.write(Data("new".utf8), to: target)
        let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
        let mode = try #require(attributes[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o644)
        #expect(try folder.read("jotd.json") == "new")
    }

    @Test func writingIntoAMissingFolderNamesTheFile() throws {
        let folder = try TemporaryFolder()
        let target = folder.file("missing/jotd.json")
        #expect {
            try AtomicFile.write(Data("{}".utf8), to: target)
        } throws: { error in
            "\(error)" == "Cannot write \(target.path) safely: cannot create a temporary file: No such file or directory."
        }
    }

    @Test func leftoversOfInterruptedWritesAreRemovedAndNothingElse() throws {
        let folder = try TemporaryFolder()
        try folder.write(".jotd.json.tmp-12345", "{\"half\": ")
        try folder.write(".index.json.tmp-9", "")
        try folder.write("jotd.json", "{}")
        try folder.write(".hidden", "keep me")
        let removed = AtomicFile.removeLeftovers(in: folder.url)
        #expect(removed.sorted() == [".index.json.tmp-9", ".jotd.json.tmp-12345"])
        #expect(folder.names() == [".hidden", "jotd.json"])
    }

    /// A reader that opens the file while it is being replaced a thousand times never sees a partial file.
    @Test func readerNeverSeesATornSnapshotWhileItIsRewritten() async throws {
        let folder = try TemporaryFolder()
        let target = folder.file("news.json")
        let large = Data(JSONWriter.string(
            .object(["items": .array((0..<2_000).map { .string("item \($0) with some padding text") })]),
            style: .pretty
        ).utf8)
        let small = Data("{\"items\": []}\n".utf8)
        try AtomicFile.write(small, to: target)

        let shared = TornReadProbe()

        // The reader runs on its own thread, so it really reads while the writer renames.
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            shared.firstRead.withLock { $0 = started }
            let thread = Thread {
                var last = false
                while !last {
                    last = shared.done.load(ordering: .acquiring)
                    do {
                        _ = try JSONReader.read(try Data(contentsOf: target))
                    } catch {
                        shared.failures.withLock { $0.append("\(error)") }
                    }
                    shared.reads.add(1, ordering: .relaxed)
                    shared.firstRead.withLock { $0.take() }?.resume()
                }
                shared.finished.withLock { $0.take() }?.resume()
            }
            thread.start()
        }
        // The writer has a thread of its own too: a thousand flushes to disk must not hold a thread of
        // the shared task pool.
        await withCheckedContinuation { (end: CheckedContinuation<Void, Never>) in
            shared.finished.withLock { $0 = end }
            let writer = Thread {
                for round in 0..<1_000 {
                    do {
                        try AtomicFile.write(round.isMultiple(of: 2) ? large : small, to: target)
                    } catch {
                        shared.failures.withLock { $0.append("write \(round): \(error)") }
                    }
                }
                shared.done.store(true, ordering: .releasing)
            }
            writer.start()
        }

        #expect(shared.reads.load(ordering: .relaxed) > 1)
        #expect(shared.failures.withLock { $0 } == [])
        #expect(folder.names() == ["news.json"])
    }
}

/// What the torn-read test's reader thread and writer share.
private final class TornReadProbe: Sendable {
    let done = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
    let firstRead = Mutex<CheckedContinuation<Void, Never>?>(nil)
    let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
}
