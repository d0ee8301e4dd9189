import Foundation
import GuideCore
@testable import GuideIngest
import GuideStore
import Testing
import XMLTV

/// An import does not read again a programme whose content it met just before (``PreparedContents``): what it makes
/// of every programme, its line and the issues it counts are what reading each one whole makes of them.
struct RepeatedContentTests {
    static let files: [String] = {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let sample = here.deletingLastPathComponent()
            .appendingPathComponent("Sources/GuideServer/Resources/sample-listings.xml.gz")
        let peer = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/node-xmltv/eu_listings.xml")
        return [sample.path, peer.path] + IngestFixture.realFiles()
    }()

    @Test(arguments: files)
    func preparesEveryProgrammeAsReadWhole(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let repeats = try compare(bytes, chunk: 1 << 16)
        #expect(repeats > 0, "no programme of \(path) repeated one before it")
    }

    /// Repeats beside what must be read again: another clump index, a stop before the start, an unknown entity (counted
    /// each time), a comment inside, another channel; and cut every few bytes, where a content not all read yet is read
    /// (and not remembered).
    @Test func readsAgainWhatARepeatCannotSkip() throws {
        let body = "<title lang=\"en\">News</title><desc lang=\"en\">The day's news.</desc><category>News</category>"
        let odd = "<title>Odd &nbsp; one</title>"
        /// A programme on `channel` from `start` to `stop` o'clock on 1 December, with `attributes` and `content`.
        func programme(_ start: Int, _ stop: Int?, _ content: String, channel: String = "a", attributes: String = "",
                       end: String = "</programme>") -> String {
            let time = { (hour: Int) in "20261201\(hour < 10 ? "0" : "")\(hour)0000 +0000" }
            let stop = stop.map { " stop=\"\(time($0))\"" } ?? ""
            return "<programme start=\"\(time(start))\"\(stop) channel=\"\(channel)\"\(attributes)>\(content)\(end)"
        }
        let guide = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<tv>",
                     "<channel id=\"a\"><display-name>A</display-name></channel>",
                     programme(6, 7, body), programme(7, 8, body), programme(8, 9, body, channel: "b"),
                     programme(9, 10, body, attributes: " clumpidx=\"0/2\""),
                     programme(9, 10, body, attributes: " clumpidx=\"1/2\""),
                     programme(12, 11, body), programme(13, nil, body),
                     programme(14, nil, odd), programme(15, nil, odd),
                     programme(16, nil, "<!-- kept -->" + body), programme(17, nil, body + "\n"),
                     programme(18, nil, body, attributes: " ", end: "</programme >"),
                     // `</programme>` in an attribute value (malformed, but read): the same start, another title.
                     programme(19, nil, "<icon src=\"x</programme>\"/>" + body),
                     programme(20, nil, "<icon src=\"x</programme>\"/>" + odd),
                     // Hostile numbers: a length past Int64 (an issue, so read again each time), a start no time.
                     programme(21, nil, body + "<length units=\"seconds\">9223372036854775807</length>"),
                     programme(22, nil, body + "<length units=\"seconds\">9223372036854775807</length>"),
                     programme(23, nil, body + "<length>-1</length>"),
                     programme(23, nil, body + "<length>nan</length>"),
                     programme(24, nil, body + "<length>1e308</length>"),
                     programme(25, nil, body + "<length>1e308</length>"),
                     "<programme start=\"99999999999999999999 +0000\" channel=\"a\">\(body)</programme>",
                     "<programme start=\"20261201230000 +9999\" channel=\"a\">\(body)</programme>",
                     "</tv>"].joined(separator: "\n")
        for chunk in [1, 7, 64, 512] {
            #expect(try compare(Array(guide.utf8), chunk: chunk) <= 4, "chunk \(chunk)")
        }
        // Whole: the same channel later, another channel, no stop, spaces in the tags.
        #expect(try compare(Array(guide.utf8), chunk: 1 << 16) == 4)
    }

    /// Reads `bytes` in chunks of `chunk` bytes as an import does and whole, compares what each prepares and counts;
    /// returns how many programmes were handed on as repeats.
    private func compare(_ bytes: [UInt8], chunk: Int) throws -> Int {
        let channel = Channel(id: ChannelID("radio-times"))
        var plain = ListingStreamDecoder(radioTimesChannel: channel)
        var folding = TextFolding()
        var expected: [PreparedProgramme] = []
        let whole: (XMLTVItem) throws -> Void = { item in
            guard case .programme(let programme, let line) = item else { return }
            expected.append(PreparedProgramme(programme, line: line, folding: &folding))
        }
        var batching = ImportBatching()
        var importing = ListingStreamDecoder(radioTimesChannel: channel, contents: batching.contents)
        var made: [ImportItem] = [], repeats = 0
        let gather: (XMLTVItem) throws -> Void = { item in
            if case .repeated = item { repeats += 1 }
            if try batching.add(item) { made += batching.take() }
        }
        try bytes.withUnsafeBytes { raw in
            try plain.feed(raw, whole)
            for start in stride(from: 0, to: raw.count, by: chunk) {
                try importing.feed(UnsafeRawBufferPointer(rebasing: raw[start..<min(raw.count, start + chunk)]), gather)
            }
        }
        try plain.finish(whole)
        try importing.finish(gather)
        made += batching.take()
        let prepared = made.compactMap { item -> PreparedProgramme? in
            if case .programme(let programme) = item { return programme }
            return nil
        }
        #expect(prepared.count == expected.count)
        #expect(importing.issues.counts == plain.issues.counts)
        for (made, read) in zip(prepared, expected) {
            let same = made.channel == read.channel && made.start == read.start && made.knownStop == read.knownStop
                && made.provisionalStop == read.provisionalStop && made.line == read.line && made.title == read.title
                && made.clumpIndex == read.clumpIndex && made.details == read.details
                && made.foldedTitle == read.foldedTitle && made.foldedBody == read.foldedBody
                && made.bodyTexts == read.bodyTexts && made.bodyHash == read.bodyHash
            #expect(same, "\(read.channel) \(read.start) line \(read.line ?? 0)")
            if !same { break }
        }
        return repeats
    }
}
