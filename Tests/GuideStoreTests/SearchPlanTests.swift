import Foundation
import GuideCore
@testable import GuideStore
import Synchronization
import Testing

/// The plan both stores search by (``SearchPlan``), over a store made of an array: whichever way it goes (a rare
/// word's programmes, programmes in start order, or, when that finds too little, every programme of the rarest
/// word), it answers what checking every programme answers, and bounds what it reads.
@Suite struct SearchPlanTests {
    /// `channels` channels of `each` half-hour programmes from 2030, titled by `title(channel, index)`.
    struct Guide {
        let programmes: [(id: Int64, channel: Int, start: Int64, stop: Int64, title: String)]
        let schedule: ScheduleIndex
        /// Ids `matching` was asked about, in all.
        let read = Counter()

        final class Counter: Sendable {
            private let count = Mutex(0)
            func add(_ more: Int) { count.withLock { $0 += more } }
            var total: Int { count.withLock { $0 } }
        }

        init(channels: Int, each: Int, title: (Int, Int) -> String) {
            var programmes: [(id: Int64, channel: Int, start: Int64, stop: Int64, title: String)] = []
            var entries: [ScheduleIndex.Entry] = [], slots: [ScheduleIndex.Slot] = []
            for channel in 0..<channels {
                let first = entries.count
                for index in 0..<each {
                    // Channels start a minute apart, so that start order interleaves them.
                    let start = 1_893_456_000 + Int64(index * 1800 + channel * 60)
                    let id = Int64(programmes.count + 1)
                    programmes.append((id, channel, start, start + 1800, title(channel, index)))
                    entries.append(ScheduleIndex.Entry(start: start, stop: start + 1800, id: id))
                }
                slots.append(ScheduleIndex.Slot(channel: ChannelID("c\(channel)"), entries: first..<entries.count))
            }
            self.programmes = programmes
            schedule = ScheduleIndex(generation: 1, slots: slots, entries: entries, longest: 1800)
        }

        /// The plan's store: `known` words have these texts (titles are programme ids here), others are too common.
        func store(_ query: SearchQuery, known: [String: [Int64]]) -> SearchPlan.Store {
            SearchPlan.Store(
                texts: { term in known[term].map { ($0, []) } },
                programmes: { titles, _, most in titles.count > most ? nil : titles },
                matching: { ids, limit in
                    read.add(ids.count)
                    let wanted = Set(ids)
                    return programmes.filter { row in
                        wanted.contains(row.id) && query.matches(folded: row.title)
                            && query.endingAfter.map { row.stop > $0.unixSeconds } ?? true
                    }
                        .sorted { ($0.start, $0.id) < ($1.start, $1.id) }.prefix(limit).map(Self.stored)
                })
        }

        /// What checking every programme finds.
        func everyProgramme(_ query: SearchQuery) -> [Int64] {
            programmes.filter { row in query.matches(folded: row.title) && query.endingAfter.map { row.stop > $0.unixSeconds } ?? true }
                .sorted { ($0.start, $0.id) < ($1.start, $1.id) }.prefix(query.limit).map(\.id)
        }

        static func stored(_ row: (id: Int64, channel: Int, start: Int64, stop: Int64, title: String)) -> StoredProgramme {
            StoredProgramme(id: ProgrammeID(rawValue: row.id), source: SourceName("test"),
                            programme: Programme(channel: ChannelID("c\(row.channel)"), start: Date(unixSeconds: row.start),
                                                 stop: Date(unixSeconds: row.stop), titles: [LocalizedText(row.title)]),
                            end: Date(unixSeconds: row.stop))
        }
    }

    @Test func inStartOrderACommonWordFillsThePageFromTheFirstProgrammes() async throws {
        let guide = Guide(channels: 40, each: 200) { channel, index in (channel + index) % 3 == 0 ? "the news" : "film" }
        for endingAfter in [nil, Date(unixSeconds: 1_893_456_000 + 50 * 1800)] {
            let query = SearchQuery(["news"], limit: 100, endingAfter: endingAfter)
            let found = try await SearchPlan.run(query, schedule: guide.schedule, in: guide.store(query, known: [:]))
            #expect(found.map(\.id.rawValue) == guide.everyProgramme(query))
        }
        // A third of the programmes match: the page is full within a batch or two, not all 8,000 read.
        #expect(guide.read.total <= 4 * SearchPlan.batch)
    }

    @Test func aRareWordDrivesTheSearchThroughItsProgrammes() async throws {
        let guide = Guide(channels: 10, each: 100) { channel, index in channel == 3 && index % 10 == 0 ? "rare bird news" : "news" }
        let query = SearchQuery(["bird", "news"], limit: 100)
        let birds = guide.programmes.filter { $0.title.contains("bird") }.map(\.id)
        let found = try await SearchPlan.run(query, schedule: guide.schedule, in: guide.store(query, known: ["bird": birds]))
        #expect(found.map(\.id.rawValue) == guide.everyProgramme(query) && found.count == birds.count)
        #expect(guide.read.total == birds.count)
    }

    @Test func commonWordsThatSeldomMeetStopScanningAndReadTheRarestWordsProgrammes() async throws {
        // 60,000 programmes; "paid" in a third of them (known, but too many programmes to drive the search), "show"
        // in most (too common to look up); both together in 5.
        let guide = Guide(channels: 100, each: 600) { channel, index in
            if channel == 99 && index >= 595 { return "paid show" }
            return index % 3 == 0 ? "paid programming" : "the show"
        }
        let query = SearchQuery(["paid", "show"], limit: 100)
        let paid = guide.programmes.filter { $0.title.contains("paid") }.map(\.id)
        #expect(paid.count > SearchPlan.mostCandidates)
        let found = try await SearchPlan.run(query, schedule: guide.schedule, in: guide.store(query, known: ["paid": paid]))
        #expect(found.map(\.id.rawValue) == guide.everyProgramme(query))
        #expect(found.count == 5)
        // It read the first programmes in start order up to the bound, then the rarest word's: never all 60,000
        // one batch at a time to the end.
        #expect(guide.read.total == SearchPlan.mostScanned + paid.count)
    }
}
