import Foundation
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport

/// `run --shard K/N`: N daemons share one definitions folder, each widget refreshed by exactly one.
struct ShardTests {
    /// 300 widgets reading one local file, named like real ones (`bitdream.home`-style instance ids too).
    static func config(in folder: TemporaryFolder, count: Int = 300) throws -> [String] {
        try folder.write("widgets.d/data/items.json", #"{"items": [{"title": "one"}]}"#)
        var ids: [String] = []
        for n in 0..<count {
            let id = n % 3 == 0 ? "server\(n).home" : "widget-\(n)"
            ids.append(id)
            try folder.write("widgets.d/\(id).json", #"{ "source": { "path": "data/items.json" }, "schedule": "never" }"#)
        }
        return ids.sorted()
    }

    /// Runs `count` shards once, each into `out-K-of-N`; returns the ids each one wrote.
    static func runShards(_ count: Int, in folder: TemporaryFolder) async throws -> [[String]] {
        var written: [[String]] = []
        for number in 1...count {
            let out = "out-\(number)-of-\(count)"
            let result = try await Widgetd.run(
                ["run", "--config", "widgets.d", "--out", out, "--once", "--shard", "\(number)/\(count)"], in: folder.url)
            #expect(result.status == 0, "\(result.stderr)")
            written.append(folder.names(in: out).filter { $0.hasSuffix(".json") && $0 != "index.json" }.map { String($0.dropLast(5)) })
        }
        return written
    }

    @Test func everyWidgetIsRefreshedByExactlyOneOfThreeDaemonsAndFourMovesAQuarter() async throws {
        let folder = try TemporaryFolder()
        let ids = try Self.config(in: folder)
        let three = try await Self.runShards(3, in: folder)
        #expect(three.flatMap { $0 }.sorted() == ids, "every widget once, none twice")
        var manifests: Set<String> = []
        var galleries: Set<String> = []
        for (index, shard) in three.enumerated() {
            let name = "\(index + 1)-of-3"
            #expect(shard.count > 60 && shard.count < 140, "shard \(name) has \(shard.count) widgets")
            // Each shard's part of the index lists its own widgets only; index.json is the manifest of the parts.
            let part = try JSONReader.read(Data(try folder.read("out-\(name)/shards/\(name).json").utf8))
            #expect(part["widgets"]?.array?.compactMap { $0["id"]?.string }.sorted() == shard.sorted())
            #expect(part["shard"]?.string == "\(index + 1)/3")
            #expect(part["generation"]?.string?.count == 16)
            #expect(Set(folder.names(in: "out-\(name)/shards")) == ["\(name).json", "\(name).html", "\(name).prom"])
            #expect(!folder.names(in: "out-\(name)").contains("widgetd.prom"))
            manifests.insert(try folder.read("out-\(name)/index.json"))
            galleries.insert(try folder.read("out-\(name)/index.html"))
        }
        // The same bytes from every shard, so that shards writing one output never undo each other.
        #expect(manifests.count == 1 && galleries.count == 1)
        let manifest = try JSONReader.read(Data(try #require(manifests.first).utf8))
        #expect(manifest["shards"]?.number == 3)
        #expect(manifest["parts"]?.array?.compactMap(\.string) == ["shards/1-of-3.json", "shards/2-of-3.json", "shards/3-of-3.json"])
        #expect(manifest["widgets"] == nil)

        let four = try await Self.runShards(4, in: folder)
        #expect(four.flatMap { $0 }.sorted() == ids)
        let before = Dictionary(uniqueKeysWithValues: three.enumerated().flatMap { shard, ids in ids.map { ($0, shard) } })
        let after = Dictionary(uniqueKeysWithValues: four.enumerated().flatMap { shard, ids in ids.map { ($0, shard) } })
        let moved = ids.filter { before[$0] != after[$0] }
        // Rendezvous hashing: a widget either stays or moves to the new shard 4/4, never between old ones.
        #expect(moved.allSatisfy { after[$0] == 3 })
        let fraction = Double(moved.count) / Double(ids.count)
        #expect(fraction > 0.15 && fraction < 0.35)
        print(
            "shards: 3 daemons hold \(three.map(\.count)) of \(ids.count) widgets; 4 hold \(four.map(\.count)); "
                + "\(moved.count) moved (\(String(format: "%.1f", fraction * 100)) %), all to the new shard")
    }

    @Test func aShardOutsideTheCountIsAUsageError() async throws {
        let output = try await Widgetd.run(["run", "--once", "--shard", "0/3"])
        #expect(output.status == 2)
        #expect(
            output.stderrLines.first
                == "Error: --shard: shard 0 does not exist among 3 (they are numbered 1 to 3); write e.g. --shard 1/3")
        let text = try await Widgetd.run(["run", "--once", "--shard", "two"])
        #expect(text.status == 2)
        #expect(
            text.stderrLines.first == "Error: --shard: 'two' is not a shard; write K/N, e.g. --shard 1/3 for the first of three daemons")
    }

    @Test func ownershipDependsOnTheIdAloneAndIsStable() throws {
        // The same answer on every machine and run. These owners were computed independently (in Python,
        // from the documented description (Operating, "Many machines"): FNV-1a of "K:id", MurmurHash3's fmix64, the largest wins).
        // Shard K weighs "K-1:id": the widgets of the shard that counted from 0 as K-1 are shard K's now.
        let owners = ["news", "quotes", "bitdream.home", "jotd"].map { Shard.owner(of: $0, among: 3) }
        #expect(owners == [3, 3, 1, 1])
        let shards = try (1...3).map { try Shard(number: $0, count: 3) }
        for id in ["news", "quotes", "bitdream.home", "jotd"] {
            #expect(shards.filter { $0.owns(id) }.count == 1)
        }
        #expect(try Shard(parsing: "1/1").owns("anything"))
        #expect(try Shard(parsing: "2/3").name == "2-of-3")
    }
}
