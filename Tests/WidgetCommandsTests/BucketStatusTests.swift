import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetCommands

/// What `widgetd status` says of a bucket daemon from its working folder: that it waits for its shard's
/// lease, held by whom and since when.
struct BucketStatusTests {
    let now = Date(timeIntervalSince1970: 1_800_000_120)
    let heldSince = Date(timeIntervalSince1970: 1_799_990_000)

    func status(_ arguments: [String]) async -> (status: Int32, stdout: [String]) {
        let printed = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: ManualClock(now: now), secrets: SecretStore(environment: [:]), variables: [:],
            print: { text in printed.withLock { $0 += text.split(separator: "\n").map(String.init) } }, printError: { _ in })
        let status = await WidgetCommandLine.main(["status"] + arguments, environment: environment)
        return (status, printed.withLock { $0 })
    }

    @Test func theLeasesStatusReadsBackWhatItWrites() throws {
        let folder = try TemporaryFolder()
        let statuses: [LeaseKeeper.Status] = [
            .idle, .waiting(holder: "pod-a pid 7 (5f0c)", heldSince: heldSince, waitingSince: now),
            .waiting(holder: nil, heldSince: nil, waitingSince: now),
            .holding(since: now), .unrenewed(since: now), .lost(by: "pod-b pid 9 (77aa)"), .released,
        ]
        for status in statuses {
            let written = LeaseStatus(status: status, label: "shard 1/3", pid: 42)
            try written.write(in: folder.url.path)
            #expect(LeaseStatus.read(in: folder.url.path) == written)
        }
    }

    @Test func aDaemonWaitingForItsLeaseIsSaidToWaitWithItsHolder() async throws {
        let folder = try TemporaryFolder()
        let work = folder.file("work")
        let lock = try DaemonLock(store: SnapshotStore(directory: work), recordingPID: false)
        defer { lock.release() }
        let waiting = LeaseKeeper.Status.waiting(
            holder: "pod-a pid 7 (5f0c)", heldSince: heldSince, waitingSince: now.addingTimeInterval(-120))
        try LeaseStatus(status: waiting, label: "shard 1/3", pid: 42).write(in: work.path)
        let text = await status(["--out", "s3://widgets/prod", "--work", work.path])
        #expect(text.status == 0)
        #expect(
            text.stdout == [
                "daemon: running, pid 42, waiting for the lease of shard 1/3, held by pod-a pid 7 (5f0c) since 2027-01-15T05:13:20Z (waiting 2m)"
            ])
        let json = await status(["--out", "s3://widgets/prod", "--work", work.path, "--format", "json"])
        #expect(json.stdout.contains { $0.contains(#""state" : "waiting""#) || $0.contains(#""state": "waiting""#) })
    }

    @Test func aStoppedDaemonsLeaseIsNotShown() async throws {
        let folder = try TemporaryFolder()
        let work = folder.file("work")
        try LeaseStatus(status: .waiting(holder: "pod-a pid 7 (5f0c)", heldSince: nil, waitingSince: now), label: "shard 1/3", pid: 42)
            .write(in: work.path)
        // Nobody holds the working folder's lock: what the file says is over.
        let text = await status(["--out", "s3://widgets/prod", "--work", work.path])
        #expect(!text.stdout.joined().contains("waiting for the lease"))
    }
}
