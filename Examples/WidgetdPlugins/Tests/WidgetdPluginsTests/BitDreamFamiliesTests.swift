import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// Seed 001 (BitDream) in the six-seed gallery, family by family, as a person sees the page: the texts the
/// app's Server Monitor widget shows for the recorded Transmission answers (crapshack/BitDream,
/// BitDreamWidgets/), our torrent list in large, and "unavailable" for the other families
/// (SessionOverviewWidget.swift:101: small and medium).
struct BitDreamFamiliesTests {
    /// What each family shows for each server, in order. Speeds as the app's ByteCountFormatter (.file,
    /// SessionOverviewWidget.swift:113-119) writes them: 5,242,880 B/s "5.2 MB/s", 1,048,576 "1 MB/s",
    /// 3,145,728 "3.1 MB/s", 0 "0 KB/s"; the ratio with two decimals (SessionOverviewView.swift:29):
    /// 10,485,760,000 ÷ 7,340,032,000 = 1.43, and 0.00 with nothing downloaded.
    static let expected: [String: [String: [String]]] = [
        "bitdream.home": [
            // SessionOverviewView.swift:98-149: the counts with icons only (8 in all, 2 downloading, 1 done).
            "small": ["Home", "8", "2", "1", "↓ 5.2 MB/s", "↑ 1 MB/s"],
            // SessionOverviewView.swift:170-212, SessionOverviewWidget.swift:175-204.
            "medium": ["Home", "8", "Total", "2", "Downloading", "1", "Done", "1.43", "↓ 5.2 MB/s", "↑ 1 MB/s"],
            // Our addition: the torrents, the failing one with its error.
            "large": [
                "Home", "Total", "Downloading", "Done", "Errors", "1.43", "↓ 5.2 MB/s", "debian-13.2.0-amd64-netinst.iso",
                "Downloading", "61%", "kali-linux-2026.3-installer-amd64.iso", "Tracker gave HTTP response code 404 (Not Found)",
            ],
        ],
        "bitdream.seedbox": [
            "small": ["Seedbox", "1", "0", "0", "↓ 0 KB/s", "↑ 3.1 MB/s"],
            "medium": ["Seedbox", "Total", "Downloading", "Done", "0.00", "↓ 0 KB/s", "↑ 3.1 MB/s"],
            "large": ["Seedbox", "0.00", "big-buck-bunny-4k.mkv", "Seeding", "100%"],
        ],
    ]

    @Test(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
    func everyFamilyShowsWhatTheAppShowsOrSaysItIsUnavailable() async throws {
        let gallery = try await SeedGalleryPage.shared.value
        // Every family expected was read: a loop over none would check nothing.
        #expect(
            Set(gallery.readings.map(\.family)).isSuperset(of: Self.expected.values.flatMap(\.keys)), "\(gallery.readings.map(\.family))")
        for (family, texts) in gallery.readings {
            for (id, families) in Self.expected.sorted(by: { $0.key < $1.key }) {
                let text = try #require(texts[id], "\(family): \(texts.keys.sorted())")
                if let expected = families[family] {
                    SeedGalleryPage.expectInOrder(expected, in: text, "\(id) \(family)")
                    // The app's units: never binary ones.
                    #expect(!text.contains("5.0 MB/s") && !text.contains("MiB"), "\(id) \(family): \(text)")
                    if family != "large" { #expect(!text.contains(".iso"), "no torrent list: \(text)") }
                } else {
                    #expect(text.lowercased().contains("unavailable"), "\(id) \(family): \(text)")
                }
            }
        }
    }

    @Test func theLargeFamilyDrawsBothSpeedsHistoriesOnceTheyHaveTwoPoints() throws {
        let definition = try SeedView.definition(seed: "001-bitdream", id: "bitdream.home")
        let history: WidgetObject = [
            "down": SeedView.points(["5242880", "0", "2400000", "1048576"]), "up": SeedView.points(["1048576", "850000", "3145728", "0"]),
        ]
        let large = try SeedView.render(definition, family: .large, history: history)
        let drawings = large.matches(of: /<svg class="sparkline"[^>]*>.*?<\/svg>/).map { String($0.output) }
        try #require(drawings.count == 2, "\(large)")
        #expect(drawings[0].contains("<title>Download speed (bytes/s): min 0, max 5242880, first 5242880, last 1048576 (4 points)</title>"))
        #expect(drawings[1].contains("<title>Upload speed (bytes/s): min 0, max 3145728, first 1048576, last 0 (4 points)</title>"))
        #expect(drawings.allSatisfy { $0.contains(#"viewBox="0 0 190 36""#) && $0.contains("spark-line") })
        #expect(large.contains("↓ Download") && large.contains("↑ Upload"), "\(large)")

        // Without two points there is nothing to draw; medium never draws.
        #expect(!(try SeedView.render(definition, family: .large, history: [:])).contains("<svg"))
        #expect(!(try SeedView.render(definition, family: .medium, history: history)).contains("<svg"))
    }
}
