import Foundation
import GuideCore
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import TestReceivers
import Testing
import XMLTV

/// The bundled sample's span as GuideServer states it (what a first run moves to the current week) is the file's.
@Suite struct SampleListingsTests {
    @Test func theStatedSpanIsTheFiles() async throws {
        let sample = try #require(GuideServer.sampleListings)
        let unpacked = try await Program.run("/bin/zcat", arguments: [sample.path])
        try #require(unpacked.status == 0)
        var reader = XMLTVReader()
        var first = Date.distantFuture, last = Date.distantPast
        let take = { (item: XMLTVItem) in
            guard case .programme(let programme, _) = item else { return }
            first = min(first, programme.start)
            last = max(last, programme.stop ?? programme.start)
        }
        try unpacked.output.withUnsafeBytes { try reader.feed($0, take) }
        try reader.finish(take)
        #expect(first..<last == GuideServer.sampleSpan)
    }

    /// The grid says it shows the sample while the guide is the sample a first run imported; once an admin adds a
    /// source of their own and it imports, it no longer does.
    @Test func theGridSaysItIsTheSampleUntilASourceOfOnesOwn() async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.store.setGuideSetting(GuideSettingName.sample, "41")
        try await server.run { client in
            let page = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(page.contains("Sample listings, moved to this week: an admin adds your own on the sources page."))
            try await server.store.addSource(SourceDefinition(name: SourceName("mine"), format: .xmltv, location: "/srv/guide.xml"))
            try await server.importListings(WebTests.listings, as: "mine")
            #expect(!String(buffer: try await client.execute(uri: "/", method: .get).body).contains("Sample listings"))
            // The setting edited by hand: any number is only "moved" or not, anything else no notice, never a trap.
            for (value, said) in [("9223372036854775807", true), ("-1", true), ("0", true), ("1e308", false), ("nan", false), ("", false)] {
                try await server.store.setGuideSetting(GuideSettingName.sample, value)
                try await server.importListings(WebTests.listings, as: "mine")   // A new version: the channels read again.
                let grid = try await client.execute(uri: "/", method: .get)
                #expect(grid.status == .ok && String(buffer: grid.body).contains("Sample listings") == said, "\(value)")
            }
        }
    }
}
