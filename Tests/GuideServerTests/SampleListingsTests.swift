import Foundation
import GuideServer
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
}
