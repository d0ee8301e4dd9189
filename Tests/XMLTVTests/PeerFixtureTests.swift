import Foundation
import GuideCore
import Testing
@testable import XMLTV

/// The peer projects' fixtures: every well-formed one reads, with the programme count an independent byte count gives.
@Suite struct PeerFixtureTests {
    static let wellFormed: [String] = {
        let folders = ["peer-xmltv-tests/inputs", "peer-fixtures/ektotv-xmltv", "peer-fixtures/iptv-org-epg",
                       "peer-fixtures/node-xmltv", "peer-fixtures/jellyfin-xmltv"]
        let all = folders.flatMap { (try? Fixture.files(in: $0)) ?? [] }
        return all.filter { !$0.hasSuffix("broken.xml") }
    }()

    @Test(arguments: wellFormed)
    func readsWithTheProgrammeCountOfTheFile(file: String) throws {
        let bytes = try Fixture.bytes(file)
        let result = try XMLTVReader.read(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        // An independent count: programme start tags outside comments.
        let uncommented = text.replacingOccurrences(of: #"<!--[\s\S]*?-->"#, with: "", options: .regularExpression)
        let tags = uncommented.components(separatedBy: "<programme ").count - 1
        let skipped = result.issues.counts[.skipped, default: 0]
        #expect(result.programmes.count + skipped == tags)
        #expect(result.programmes.allSatisfy { !$0.channel.rawValue.isEmpty })
    }

    /// The reader makes each programme in the one before it once that is let go (``Programme/startOver``): read that
    /// way, every programme is what it is when each is kept, nothing of the one before left in it. Our own fixtures
    /// too, with their repairs and entities.
    @Test(arguments: wellFormed + ((try? Fixture.files(in: "ours")) ?? []).filter { !$0.contains("malformed") })
    func programmesMadeInTheOneBeforeAreAsMadeAfresh(file: String) throws {
        let bytes = try Fixture.bytes(file)
        let kept = try XMLTVReader.read(bytes).programmes
        var reader = XMLTVReader()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var seen: [Data] = []
        let describe: (XMLTVItem) throws -> Void = { item in
            if case .programme(let programme, _) = item { seen.append(try encoder.encode(programme)) }
        }
        try reader.feed(bytes, describe)
        try reader.finish(describe)
        #expect(seen == (try kept.map { try encoder.encode($0) }))
    }

    @Test func readsElementsOutOfDTDOrder() throws {
        // ektotv's invalid.xml is well-formed but puts <new/> before <previously-shown/>, against the DTD.
        let result = try Fixture.read("peer-fixtures/ektotv-xmltv/invalid.xml")
        let programme = try #require(result.programmes.first)
        #expect(programme.title == "Breaking Bad")
        #expect(programme.isNew && programme.isRepeat)
        #expect(programme.previouslyShown?.channel == "channel_two")
    }
}
