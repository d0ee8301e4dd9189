import Foundation
import GuideCore
@testable import GuideServer
import Testing

/// The programme summaries `/api/now` and `/api/guide` keep: the same bytes as written afresh, only for the listings
/// they were written from, and never more than the bound.
@Suite struct SummaryFragmentsTests {
    let noon = Date(timeIntervalSince1970: 1_704_110_400)

    func programme(_ id: Int64, _ title: String, episode: String? = nil) -> StoredProgramme {
        var programme = Programme(channel: ChannelID("one.uk"), start: noon + Double(id) * 1800,
                                  stop: noon + Double(id + 1) * 1800, titles: [LocalizedText(title)])
        programme.categories = [LocalizedText("News \"live\"")]
        if let episode { programme.episodeNumbers = [EpisodeNumber(system: "xmltv_ns", value: episode)] }
        return StoredProgramme(id: ProgrammeID(rawValue: id), source: SourceName("test"), programme: programme,
                               end: noon + Double(id + 1) * 1800)
    }

    /// `programmes` written into an array, through `fragments` for `generation` or (nil) afresh.
    func answer(_ programmes: [StoredProgramme?], _ fragments: SummaryFragments?, generation: Int64 = 1) -> String {
        var json = JSONWriter()
        var use = fragments?.use(generation: generation)
        json.array { json in
            for programme in programmes {
                if use != nil {
                    use?.write(programme?.id, into: &json) { programme }   // As /api/now asks: by id first.
                } else {
                    ProgrammeSummary.write(programme, into: &json)
                }
            }
        }
        if let fragments, var use { fragments.keep(&use) }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test func keptSummariesReadAsWrittenAfresh() throws {
        let fragments = SummaryFragments()
        let programmes = [programme(1, "News"), nil, programme(2, "Film", episode: "1.4/8."), programme(1, "News"), nil]
        let fresh = answer(programmes, nil)
        #expect(answer(programmes, fragments) == fresh)
        #expect(fragments.size.summaries == 2)
        // Asked again, the kept ones are written, in another order and beside a new one.
        #expect(answer(programmes.reversed(), fragments) == answer(programmes.reversed(), nil))
        let more = [programme(3, "Late")] + programmes
        #expect(answer(more, fragments) == answer(more, nil))
        #expect(fragments.size.summaries == 3)
        _ = try JSONSerialization.jsonObject(with: Data(fresh.utf8))
    }

    @Test func aSummaryIsKeptOnlyForItsListings() {
        let fragments = SummaryFragments()
        _ = answer([programme(1, "News")], fragments, generation: 1)
        // The same id in the same listings is the kept summary; in newer listings it is written again.
        #expect(answer([programme(1, "Changed")], fragments, generation: 1).contains("News"))
        #expect(answer([programme(1, "Changed")], fragments, generation: 2).contains("Changed"))
        // What an answer about older listings wrote is not kept over the newer ones'.
        _ = answer([programme(2, "Old")], fragments, generation: 1)
        #expect(answer([programme(2, "New")], fragments, generation: 2).contains("New"))
        #expect(fragments.size.summaries == 2)
    }

    @Test func theyStartAgainPastTheBound() {
        let fragments = SummaryFragments()
        let title = String(repeating: "x", count: 100_000)
        for id in 1...Int64(SummaryFragments.mostBytes / 100_000 + 20) {
            _ = answer([programme(id, title)], fragments)
            #expect(fragments.size.bytes <= SummaryFragments.mostBytes)
        }
        #expect(fragments.size.summaries < SummaryFragments.mostBytes / 100_000)
        // One answer's summaries past the bound are written, not kept.
        let huge = String(repeating: "y", count: SummaryFragments.mostBytes + 1)
        #expect(answer([programme(9_999, huge)], fragments).contains(huge))
        #expect(fragments.size.bytes <= SummaryFragments.mostBytes)
    }
}
