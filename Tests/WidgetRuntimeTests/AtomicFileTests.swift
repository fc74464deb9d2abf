import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport

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
        let large = Data(
            JSONWriter.string(
                .object(["items": .array((0..<2_000).map { .string("item \($0) with some padding text") })]),
                style: .pretty
            ).utf8)
        let small = Data("{\"items\": []}\n".utf8)
        try AtomicFile.write(small, to: target)

        let shared = TornReadProbe()

        // Reader and writer run on threads of their own, so reads really overlap renames (and a thousand
        // flushes to disk hold no thread of the shared task pool). The writer lets the reader go just
        // before each write, so the reader reads while the file is being replaced, without spinning.
        await withCheckedContinuation { (end: CheckedContinuation<Void, Never>) in
            shared.finished.withLock { $0 = end }
            let reader = Thread {
                for _ in 0..<1_000 {
                    shared.go.wait()
                    do {
                        let data = try Data(contentsOf: target)
                        _ = try JSONReader.read(data)
                        // Whole files only: the old or the new one, never a mix or a prefix.
                        if data == large {
                            shared.largeReads.add(1, ordering: .relaxed)
                        } else if data != small {
                            shared.failures.withLock { $0.append("a read of \(data.count) bytes is neither version") }
                        }
                    } catch {
                        shared.failures.withLock { $0.append("\(error)") }
                    }
                    shared.reads.add(1, ordering: .relaxed)
                }
                shared.threadFinished()
            }
            let writer = Thread {
                for round in 0..<1_000 {
                    shared.go.signal()
                    do {
                        try AtomicFile.write(round.isMultiple(of: 2) ? large : small, to: target)
                    } catch {
                        shared.failures.withLock { $0.append("write \(round): \(error)") }
                    }
                }
                shared.threadFinished()
            }
            reader.start()
            writer.start()
        }

        #expect(shared.reads.load(ordering: .relaxed) == 1_000)
        #expect(shared.failures.withLock { $0 } == [])
        // The reads saw both versions, so they did overlap the rewrites.
        #expect((1..<1_000).contains(shared.largeReads.load(ordering: .relaxed)))
        #expect(folder.names() == ["news.json"])
    }
}

/// What the torn-read test's reader thread and writer share.
private final class TornReadProbe: Sendable {
    let reads = Atomic<Int>(0)
    let largeReads = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
    let go = DispatchSemaphore(value: 0)
    let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let running = Atomic<Int>(2)

    /// Called by each of the two threads as it ends; the last one resumes the test.
    func threadFinished() {
        if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            finished.withLock { $0.take() }?.resume()
        }
    }
}
