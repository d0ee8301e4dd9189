import Foundation
import GuideCore
@testable import GuideIngest
import NIOCore
import Testing

/// A feed whose last import's days are known is downloaded into a file written only where a refresh reads it
/// (``PartialDownload``): its header and the days that changed. Whatever a refresh must read beyond that is downloaded
/// again whole, and the guide is the one reading the whole file gives.
@Suite struct PartialDownloadTests {
    /// The first guide, and one with a day changed on two of its channels.
    static func guides() -> (first: PartialRefreshTests.Guide, changed: PartialRefreshTests.Guide) {
        let first = PartialRefreshTests.Guide(channels: 4)
        var changed = first
        for (channel, day) in [(0, 3), (2, 5)] {
            for index in changed.day(day, of: channel) {
                changed.channels[channel].programmes[index] = changed.channels[channel].programmes[index]
                    .replacingOccurrences(of: "<title>", with: "<title>Changed: ")
            }
        }
        return (first, changed)
    }

    @Test(arguments: [7, 4_096, 65_536, Int.max])
    func onlyTheHeaderAndTheChangedDaysAreWritten(chunk: Int) throws {
        try Self.surveyChanged(chunk: chunk) { survey, needed, bytes, path in
            let layout = try #require(survey.layout), written = try #require(survey.written)
            #expect(layout.runs.map(\.groups) == (try PartialRefreshTests.layout(of: bytes)).runs.map(\.groups))
            #expect(survey.channels.map(\.id.rawValue) == ["copy0", "copy1", "copy2", "copy3"])
            // The header and each changed group are written, as they are in the feed; nothing else but the bytes the
            // scan took with the header's end (the rest of its chunk, or the few it needed to see the first tag).
            #expect(needed.count == 3 && needed.allSatisfy(written.covers))
            let neededBytes = needed.reduce(0) { $0 + Int64($1.count) }
            #expect(written.bytes >= neededBytes && written.bytes <= neededBytes + Int64(min(chunk, bytes.count)) + 16)
            #expect(written.bytes * 3 < Int64(bytes.count), "\(written.bytes) of \(bytes.count)")
            try Self.expectWritten(written, of: bytes, in: path)
        }
    }

    /// Bytes held past the bound (a day longer than it, here a bound shorter than a day) are written as a whole
    /// download would write them: more is written, never less.
    @Test func pastTheBoundHeldBytesAreWritten() throws {
        try Self.surveyChanged(chunk: 1_000, mostHeld: 3_000) { survey, needed, bytes, path in
            let written = try #require(survey.written)
            #expect(needed.allSatisfy(written.covers))
            #expect(written.bytes * 2 > Int64(bytes.count))
            try Self.expectWritten(written, of: bytes, in: path)
        }
    }

    /// The survey of ``guides()``'s changed guide arriving `chunk` at a time against the first one's stored groups,
    /// written in part into a temporary file: `body` gets the survey, what a refresh reads (the header and the
    /// changed groups' bytes), the feed's bytes and the file's path.
    static func surveyChanged(chunk: Int, mostHeld: Int = PartialDownload.mostHeld,
                              _ body: (FeedSurvey, [Range<Int64>], [UInt8], String) throws -> Void) throws {
        let (first, changed) = guides()
        let stored = try Self.stored(first), bytes = changed.bytes
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var survey = FeedSurvey(location: "feed.xml", localZone: nil, path: path,
                                partial: try PartialDownload(previous: stored, path: path, location: "feed.xml",
                                                             mostHeld: mostHeld))
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try survey.feed(ByteBuffer(bytes: bytes[start..<min(start + chunk, bytes.count)]), at: Int64(start))
        }
        try survey.finish(at: Int64(bytes.count))
        let layout = try #require(survey.layout)
        let changedGroups = layout.runs.flatMap { run in
            run.groups.filter { stored[run.channel]?.days[$0.day] != $0.digest }.map(\.bytes)
        }
        try body(survey, [0..<layout.headerEnd] + changedGroups, bytes, path)
    }

    /// The groups stored for `guide` at an import (any context: the same when read back).
    static func stored(_ guide: PartialRefreshTests.Guide) throws -> [String: ListingLayout.Stored] {
        let text = try PartialRefreshTests.layout(of: guide.bytes).text(context: "test") { $0 }
        return try #require(ListingLayout.groups(in: Substring(text), context: "test"))
    }

    /// The file at `path` holds `bytes` where `written` says.
    static func expectWritten(_ written: WrittenRanges, of bytes: [UInt8], in path: String) throws {
        let file = try #require(FileManager.default.contents(atPath: path))
        for range in written.ranges.map({ Int($0.lowerBound)..<Int($0.upperBound) }) {
            #expect(file[range] == Data(bytes[range]))
        }
    }

    @Test func writtenRangesJoinAndCover() {
        var written = WrittenRanges()
        for range: Range<Int64> in [0..<10, 10..<12, 20..<30, 25..<40, 50..<50, 60..<61] { written.add(range) }
        #expect(written.ranges == [0..<12, 20..<40, 60..<61])
        #expect(written.bytes == 33)
        #expect(written.covers(0..<12) && written.covers(3..<5) && written.covers(20..<40) && written.covers(60..<61))
        #expect(!written.covers(11..<13) && !written.covers(12..<20))
        #expect(!written.covers(19..<21) && !written.covers(61..<62))
        #expect(written.covers(70..<70) && !WrittenRanges().covers(0..<1))
    }

    /// A feed the scan now refuses (a comment between programmes) is downloaded again whole and read whole.
    @Test func aFeedNoLongerPlainIsDownloadedAgainWhole() async throws {
        let (first, changed) = Self.guides()
        var refused = changed
        refused.channels[1].programmes[3] += "\n<!-- not plain any more -->"
        try await Self.expectSame(first, then: refused, downloads: 2)
    }

    /// Starts no one could read (the largest integer, -1, 1e308, nan) in a changed day: the scan refuses them, the
    /// feed is downloaded again whole, and the guide is the one reading it whole gives (the reader's own repair).
    @Test(arguments: ["9223372036854775807", "-1", "1e308", "nan"])
    func aStartNoOneCouldReadIsReadAsAWholeReadReadsIt(start: String) async throws {
        let (first, changed) = Self.guides()
        var hostile = changed
        let index = try #require(hostile.day(3, of: 0).dropFirst().first)
        let programme = hostile.channels[0].programmes[index]
        let afterStart = programme.components(separatedBy: "start=\"").dropFirst().first
        let written = try #require(afterStart?.prefix { $0 != "\"" })
        hostile.channels[0].programmes[index] = programme.replacingOccurrences(of: "start=\"\(written)\"",
                                                                               with: "start=\"\(start)\"")
        try await Self.expectSame(first, then: hostile, downloads: 2)
    }

    /// More than half of the feed changed: read in part all the same (the whole file is not at hand).
    @Test func aFeedMostlyChangedIsStillReadInPart() async throws {
        let first = PartialRefreshTests.Guide(channels: 4)
        var changed = first
        for channel in 0..<3 {
            for day in 0..<6 {
                for index in changed.day(day, of: channel) {
                    changed.channels[channel].programmes[index] = changed.channels[channel].programmes[index]
                        .replacingOccurrences(of: "<title>", with: "<title>Changed: ")
                }
            }
        }
        let report = try await Self.expectSame(first, then: changed, downloads: 1)
        #expect(report.programmes > report.unchanged && report.unchanged > 0)
    }

    /// Two of the feed's channels go to one guide channel: a refresh reads it whole, so it is downloaded whole once,
    /// not in part and then again.
    @Test func aFeedTwoOfWhoseChannelsGoToOneIsDownloadedWholeOnce() async throws {
        let (first, changed) = Self.guides()
        let report = try await Self.expectSame(first, then: changed, downloads: 1) { rig in
            var channels = try await rig.fixture.store.sourceChannels(of: SourceName("feed"))
            let index = try #require(channels.firstIndex { $0.id.rawValue == "copy1" })
            channels[index].mappedTo = ChannelID("copy0")
            channels[index].chosenBy = .person
            try await rig.fixture.store.chooseSourceChannels([channels[index]], of: SourceName("feed"))
            #expect(try await rig.refresh("feed").downloads == 1)
        }
        #expect(report.unchanged == 0)
    }

    /// Refreshes `first` then `then` into a guide reading changes only and one reading every refresh whole (each
    /// with `between` done in between): they agree, and the first took `downloads` downloads of the second file.
    @discardableResult
    static func expectSame(_ first: PartialRefreshTests.Guide, then: PartialRefreshTests.Guide, downloads: Int,
                           between: (RefreshTests.Rig) async throws -> Void = { _ in }) async throws -> SourceReport {
        let partial = try await RefreshTests.Rig()
        let full = try await RefreshTests.Rig(readsChangesOnly: false)
        for rig in [partial, full] {
            rig.server.script("/guide.xml", .file(first.bytes))
            try await rig.add("feed", "/guide.xml")
            #expect(try await rig.refresh("feed").outcome == .imported)
            try await between(rig)
            rig.server.script("/guide.xml", .file(then.bytes))
        }
        let report = try await partial.refresh("feed")
        #expect(report.outcome == .imported && report.downloads == downloads)
        #expect(try await full.refresh("feed").outcome == .imported)
        #expect(try await PartialRefreshTests.rows(partial) == PartialRefreshTests.rows(full))
        try await partial.close()
        try await full.close()
        return report
    }
}
