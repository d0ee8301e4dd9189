import Foundation
import GuideCore
@testable import GuideStore
import Synchronization
import Testing

/// The plan both stores search by (``SearchPlan``), over a store made of an array: it answers what checking every
/// programme answers, whatever the words' frequency, and asks the store to read no more than its page.
@Suite struct SearchPlanTests {
    /// `channels` channels of `each` half-hour programmes from 2030, titled by `title(channel, index)`; a
    /// programme's title id is its id (or `titleID(id)`).
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

        init(channels: Int, each: Int, titleID: (Int64) -> Int64 = { $0 }, title: (Int, Int) -> String) {
            var programmes: [(id: Int64, channel: Int, start: Int64, stop: Int64, title: String)] = []
            var entries: [ScheduleIndex.Entry] = [], texts: [ScheduleIndex.Texts] = [], slots: [ScheduleIndex.Slot] = []
            for channel in 0..<channels {
                let first = entries.count
                for index in 0..<each {
                    // Channels start a minute apart, so that start order interleaves them.
                    let start = 1_893_456_000 + Int64(index * 1800 + channel * 60)
                    let id = Int64(programmes.count + 1)
                    programmes.append((id, channel, start, start + 1800, title(channel, index)))
                    entries.append(ScheduleIndex.Entry(start: start, stop: start + 1800, id: id))
                    texts.append(ScheduleIndex.Texts(title: titleID(id), body: 0))
                }
                slots.append(ScheduleIndex.Slot(channel: ChannelID("c\(channel)"), entries: first..<entries.count))
            }
            self.programmes = programmes
            schedule = ScheduleIndex(generation: 1, slots: slots, entries: entries, texts: texts, longest: 1800)
        }

        /// The plan's store: the titles holding a term, and `overReported` titles that do not.
        func store(_ query: SearchQuery, overReported: [Int64] = []) -> SearchPlan.Store {
            SearchPlan.Store(
                texts: { term in (programmes.filter { $0.title.contains(term) }.map(\.id) + overReported, []) },
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

        func search(_ query: SearchQuery, overReported: [Int64] = []) async throws -> [Int64] {
            try await SearchPlan.run(query, schedule: schedule, in: store(query, overReported: overReported)).map(\.id.rawValue)
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

    @Test func aCommonWordFillsThePageFromTheFirstProgrammes() async throws {
        let guide = Guide(channels: 40, each: 200) { channel, index in (channel + index) % 3 == 0 ? "the news" : "film" }
        for endingAfter in [nil, Date(unixSeconds: 1_893_456_000 + 50 * 1800 + 7)] {
            let query = SearchQuery(["news"], limit: 100, endingAfter: endingAfter)
            let found = try await guide.search(query)
            #expect(found == guide.everyProgramme(query) && found.count == 100)
        }
        // The store read only the two pages, not the 2,667 programmes holding the word.
        #expect(guide.read.total == 200)
    }

    @Test func commonWordsThatSeldomMeetAreFoundWithoutReadingEither() async throws {
        // 60,000 programmes; "paid" in a third of them, "show" in most; both together in 5, the last on the last channel.
        let guide = Guide(channels: 100, each: 600) { channel, index in
            if channel == 99 && index >= 595 { return "paid show" }
            return index % 3 == 0 ? "paid programming" : "the show"
        }
        for words in [["paid", "show"], ["show", "paid"]] {
            let query = SearchQuery(words, limit: 100)
            let found = try await guide.search(query)
            #expect(found == guide.everyProgramme(query) && found.count == 5)
        }
        #expect(guide.read.total == 10)
        // A rare word with a common one, and a word nowhere.
        let rare = SearchQuery(["programming", "paid", "nowhere"], limit: 100)
        #expect(try await guide.search(rare).isEmpty)
        #expect(guide.read.total == 10)
    }

    @Test func titlesTheIndexOverReportsAreCheckedAndThePageStillFills() async throws {
        let guide = Guide(channels: 10, each: 100) { channel, index in index % 2 == 0 ? "news" : "film" }
        let query = SearchQuery(["news"], limit: 30)
        // The first 200 programmes in start order include 100 films; the index says they hold "news".
        let films = guide.programmes.filter { $0.title == "film" && $0.start < 1_893_456_000 + 20 * 1800 }.map(\.id)
        #expect(try await guide.search(query, overReported: films) == guide.everyProgramme(query))
    }

    @Test func aTextIDTooLargeForTheScheduleIsAlwaysACandidateAndChecked() async throws {
        // Odd programmes have titles past Int32: the schedule cannot know them, so the store decides.
        let guide = Guide(channels: 5, each: 40, titleID: { $0 % 2 == 1 ? Int64(Int32.max) + $0 : $0 }) { _, index in
            index % 4 < 2 ? "news" : "film"
        }
        #expect(guide.schedule.texts.contains { $0.title == ScheduleIndex.Texts.unknownText })
        let query = SearchQuery(["news"], limit: 50)
        #expect(try await guide.search(query) == guide.everyProgramme(query))
    }

    @Test func theFirstOfTheScheduleHonoursEndingAfterAndAfter() {
        let guide = Guide(channels: 7, each: 30) { _, _ in "x" }
        let at = Int64(1_893_456_000 + 10 * 1800 + 100)
        let all = guide.schedule.entries.filter { $0.stop > at }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        let first = guide.schedule.first(20, endingAfter: at) { _ in true }
        #expect(first.map(\.id) == all.prefix(20).map(\.id))
        let next = guide.schedule.first(20, endingAfter: at, after: first.last) { _ in true }
        #expect(next.map(\.id) == all.dropFirst(20).prefix(20).map(\.id))
        // Hostile instants: nothing traps.
        #expect(guide.schedule.first(5, endingAfter: .min) { _ in true }.count == 5)
        #expect(guide.schedule.first(5, endingAfter: .max) { _ in true }.isEmpty)
        #expect(guide.schedule.first(0, endingAfter: nil) { _ in true }.isEmpty)
    }

    @Test func aChannelsFirstEntryAtOrAfterAnInstantIsWhatReadingThemInTurnFinds() {
        // Channels of 0 to 300 entries (the first entry is asked first, then the range is halved).
        var entries: [ScheduleIndex.Entry] = [], slots: [ScheduleIndex.Slot] = []
        for (channel, count) in [0, 1, 2, 3, 7, 8, 9, 64, 100, 300].enumerated() {
            let first = entries.count
            for index in 0..<Int64(count) {
                entries.append(ScheduleIndex.Entry(start: index * 10, stop: index * 10 + 10, id: index))
            }
            slots.append(ScheduleIndex.Slot(channel: ChannelID("c\(channel)"), entries: first..<entries.count))
        }
        let texts = Array(repeating: ScheduleIndex.Texts(title: 1, body: 0), count: entries.count)
        let schedule = ScheduleIndex(generation: 1, slots: slots, entries: entries, texts: texts, longest: 10)
        for slot in slots {
            for instant in stride(from: Int64(-5), through: 3_010, by: 5) {
                let read = slot.entries.first { entries[$0].start >= instant } ?? slot.entries.upperBound
                let found = schedule.firstIndex(in: slot.entries) { $0.start >= instant }
                #expect(found == read, "\(slot.entries) \(instant)")
            }
        }
    }

    @Test func aLargeScheduleReadInPartsFindsWhatCheckingEveryProgrammeFinds() async throws {
        // Past ``SearchPlan/partlyFrom`` programmes the channels are read in parts at once (one part on one core).
        let guide = Guide(channels: 1_100, each: 200) { channel, index in
            (channel * 7 + index) % 997 == 0 ? "rare news" : index % 3 == 0 ? "the news" : "film"
        }
        #expect(guide.schedule.entries.count >= SearchPlan.partlyFrom)
        for words in [["rare"], ["news"], ["rare", "news"], ["nowhere"]] {
            for endingAfter in [nil, Date(unixSeconds: 1_893_456_000 + 150 * 1800)] {
                let query = SearchQuery(words, limit: 100, endingAfter: endingAfter)
                let found = try await guide.search(query)
                #expect(found == guide.everyProgramme(query), "\(words) \(String(describing: endingAfter))")
            }
        }
        // Hostile limits on the parts' path: every match, or none, and nothing traps.
        let every = SearchQuery(["rare"], limit: .max)
        #expect(try await guide.search(every) == guide.everyProgramme(every))
        #expect(try await guide.search(SearchQuery(["rare"], limit: -1)).isEmpty)
        for parts in [Int.min, -1, 0] + Array(1...5) {
            let runs = guide.schedule.slotParts(parts)
            #expect(runs.count == min(max(parts, 1), 1_100))
            #expect(runs.first?.lowerBound == 0 && runs.last?.upperBound == 1_100)
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
        }
    }

    @Test func textIDsFarApartAreKeptWithoutABitForEachOneBelow() {
        let far = SearchPlan.TextSet([3, 2_000_000_000, Int64(Int32.max) + 5, -1])
        #expect(far.contains(3) && far.contains(2_000_000_000) && !far.contains(4) && !far.contains(-1))
        #expect(far.contains(ScheduleIndex.Texts.unknownText))
        let near = SearchPlan.TextSet(Array(1...50_000))
        #expect(near.contains(1) && near.contains(50_000) && !near.contains(50_001) && !near.contains(0))
        #expect(!SearchPlan.TextSet([]).contains(0))
    }

    @Test func theLargestLimitTheCommandLineTakesFindsEveryMatchWithoutTrapping() async throws {
        // `tvguide search --limit` takes any whole number from 1 up; the API bounds its limit to 1...500.
        let guide = Guide(channels: 6, each: 50) { channel, index in (channel * index) % 4 == 0 ? "news" : "film" }
        for limit in [Int.max, 1] {
            let query = SearchQuery(["news"], limit: limit)
            #expect(try await guide.search(query) == guide.everyProgramme(query))
        }
        #expect(try await guide.search(SearchQuery(["news"], limit: 0)).isEmpty)
        #expect(try await guide.search(SearchQuery(["news"], limit: -1)).isEmpty)
    }
}
