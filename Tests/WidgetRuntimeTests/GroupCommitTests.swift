import Foundation
import Synchronization
import Testing
import WidgetTestSupport

@testable import WidgetRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files written at the same time through a folder output are flushed together: each still lands whole,
/// with its mode, in its writer's order, and a failure stays with its file.
struct GroupCommitTests {
    @Test func manyWritersAtOnceEachLandWholeWithMode0644() throws {
        let folder = try TemporaryFolder("group-commit-many")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        let count = 48
        let failures = Collected<String>()
        Self.concurrently(count) { index in
            do {
                try output.write(Self.content(of: index), to: "w\(index).json", as: .state)
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.all == [])
        for index in 0..<count {
            #expect(output.read("w\(index).json") == Self.content(of: index))
            var status = stat()
            #expect(stat(folder.file("out/w\(index).json").path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o644)
        }
        #expect(output.names(in: "").count == count + 1)
        let counts = output.committer.committed
        #expect(counts.files == count)
        #expect(counts.dataFlushes <= count)
        #expect(counts.batches <= count)
    }

    @Test func writersArrivingDuringACommitShareTheNextBatch() throws {
        let folder = try TemporaryFolder("group-commit-batch")
        let gate = BatchGate()
        let output = FolderOutput(folder: folder.file("out"), committer: GroupCommit(willCommit: gate.willCommit))
        try output.prepareFolder()
        let later = 6
        Self.concurrently(1 + later) { index in
            if index > 0 { gate.waitUntilFirstBatchHeld() }
            try? output.write(Self.content(of: index), to: "w\(index).json", as: .state)
        } whileRunning: {
            gate.waitUntilFirstBatchHeld()
            while output.committer.waiting < later { sched_yield() }
            gate.release()
        }
        #expect(gate.batchSizes == [1, later])
        let counts = output.committer.committed
        #expect(counts.batches == 2)
        #expect(counts.files == 1 + later)
        // `.state` is flushed at once: one flush of the folder for each batch.
        #expect(counts.folderFlushes == 2)
        #if os(Linux)
        // An `fsync` for the file alone, one `syncfs` for the six together.
        #expect(counts.dataFlushes == 2)
        #else
        #expect(counts.dataFlushes == 1 + later)
        #endif
        for index in 0...later { #expect(output.read("w\(index).json") == Self.content(of: index)) }
    }

    @Test func aFailedRenameNamesItsFileAndTheRestOfTheBatchLands() throws {
        let folder = try TemporaryFolder("group-commit-failure")
        let gate = BatchGate()
        let output = FolderOutput(folder: folder.file("out"), committer: GroupCommit(willCommit: gate.willCommit))
        try output.prepareFolder()
        // A folder that is not empty cannot be renamed over.
        try folder.write("out/bad.json/keep", "x")
        let errors = Collected<(index: Int, error: AtomicFileError)>()
        let keys = ["first.json", "a.json", "bad.json", "b.json"]
        Self.concurrently(keys.count) { index in
            if index > 0 { gate.waitUntilFirstBatchHeld() }
            do throws(AtomicFileError) {
                try output.write(Data(keys[index].utf8), to: keys[index], as: .state)
            } catch {
                errors.add((index, error))
            }
        } whileRunning: {
            gate.waitUntilFirstBatchHeld()
            while output.committer.waiting < keys.count - 1 { sched_yield() }
            gate.release()
        }
        #expect(gate.batchSizes == [1, 3])
        let failed = errors.all
        #expect(failed.map(\.index) == [2])
        #expect(failed.first?.error.path == folder.file("out/bad.json").path)
        #expect(failed.first?.error.reason.hasPrefix("cannot replace the file") == true)
        for key in ["first.json", "a.json", "b.json"] { #expect(output.read(key) == Data(key.utf8)) }
        #expect(folder.names(in: "out") == [".state", "a.json", "b.json", "bad.json", "first.json"])
        #expect(output.committer.committed.files == 3)
    }

    @Test func aWriterFindsEachOfItsFilesInPlaceWhenTheWriteReturns() throws {
        let folder = try TemporaryFolder("group-commit-order")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        let mismatches = Collected<String>()
        Self.concurrently(8) { writer in
            for version in 0..<20 {
                let data = Data("\(writer):\(version)".utf8)
                do {
                    try output.write(data, to: "w\(writer).json", as: .state)
                    try output.write(data, to: "w\(writer)-next.json", as: .state)
                } catch {
                    mismatches.add("\(error)")
                }
                // The first file was in place before the second was begun.
                if output.read("w\(writer).json") != data || output.read("w\(writer)-next.json") != data {
                    mismatches.add("w\(writer) at \(version)")
                }
            }
        }
        #expect(mismatches.all == [])
        #expect(output.read("w3.json") == Data("3:19".utf8))
    }

    @Test func aWriteFlushedNowFlushesItsFolderAndALaterOneWaitsForFlush() throws {
        let folder = try TemporaryFolder("group-commit-flush")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        try output.write(Data("{}".utf8), to: "now.json", as: OutputObject(contentType: OutputObject.jsonType, flush: .now))
        #expect(output.committer.committed == GroupCommit.Counts(batches: 1, files: 1, dataFlushes: 1, folderFlushes: 1))
        try output.write(Data("{}".utf8), to: "later.json", as: OutputObject(contentType: OutputObject.jsonType, flush: .later))
        #expect(output.committer.committed == GroupCommit.Counts(batches: 2, files: 2, dataFlushes: 2, folderFlushes: 1))
        // A page is neither flushed nor waits for a batch.
        try output.write(
            Data("<p>".utf8), to: "page.html", as: OutputObject(contentType: OutputObject.htmlType, durability: .rebuildable, flush: .later)
        )
        #expect(output.committer.committed.batches == 2)
        #expect(output.read("page.html") == Data("<p>".utf8))
    }

    @Test func aTemporaryFileLeftBeforeItsCommitIsRemovedAtTheNextStart() throws {
        let folder = try TemporaryFolder("group-commit-leftover")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        try output.write(Data("old".utf8), to: "news.json", as: .state)
        // A crash after the temporary file was written, before its batch was committed.
        let temporary = try AtomicFile.writeTemporary(Data("new".utf8), forPath: folder.file("out/news.json").path)
        close(temporary.descriptor)
        #expect(folder.names(in: "out").count == 3)
        try output.prepareFolder()
        #expect(folder.names(in: "out") == [".state", "news.json"])
        #expect(output.read("news.json") == Data("old".utf8))
    }

    // MARK: - Helpers

    private static func content(of index: Int) -> Data {
        Data("{\"index\":\(index),\"padding\":\"\(String(repeating: "x", count: index * 37))\"}".utf8)
    }

    /// Runs `body` for `0..<count`, each on a thread of its own, and `meanwhile` on this one; returns
    /// when all are done.
    private static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void, whileRunning meanwhile: () -> Void = {}) {
        let group = DispatchGroup()
        for index in 0..<count {
            DispatchQueue(label: "group-commit-test-\(index)").async(group: group) { body(index) }
        }
        meanwhile()
        group.wait()
    }
}

/// Holds a committer's first batch until released, and records each batch's size.
private final class BatchGate: Sendable {
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let sizes = Mutex<[Int]>([])

    var batchSizes: [Int] { sizes.withLock { $0 } }

    /// The committer's hook: the first batch waits for ``release()``.
    var willCommit: @Sendable (Int) -> Void {
        { [self] size in
            let first = sizes.withLock { sizes in
                sizes.append(size)
                return sizes.count == 1
            }
            guard first else { return }
            held.signal()
            released.wait()
        }
    }

    /// Returns once the first batch is held (and lets the next caller know too).
    func waitUntilFirstBatchHeld() {
        held.wait()
        held.signal()
    }

    func release() {
        released.signal()
    }
}

/// What threads report, in the order they report it.
private final class Collected<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    var all: [Element] { elements.withLock { $0 } }

    func add(_ element: Element) {
        elements.withLock { $0.append(element) }
    }
}
