import Foundation
import GuideCore
import GuideStore

/// The searches `scripts/bench scale` times (issue 46): one to three words, common and rare, accents given and left
/// out, Chinese, in titles and in everything, from now and including the past; all drawn from the real guides the
/// large one is made of.
enum SearchBench {
    static let texts = ["news", "world news", "paid programming show", "hidalgo", "híradó", "hirado", "新闻", "鳳凰氣象站",
                        "rozmaring", "família", "murder", "the"]

    /// Each search 11 times after one untimed run, every way; prints a row per search and way, then p50 and p95 of
    /// all of them.
    static func run(_ store: any GuideDatabase, now: Date) async throws {
        var all: [Double] = []
        for text in texts {
            for scope in SearchQuery.Scope.allCases {
                for fromNow in [true, false] {
                    let query = SearchQuery([text], scope: scope, limit: 100, endingAfter: fromNow ? now : nil)
                    let found = try await store.search(query).count
                    var times: [Double] = []
                    for _ in 0..<11 {
                        let start = DispatchTime.now().uptimeNanoseconds
                        _ = try await store.search(query)
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    }
                    times.sort()
                    all += times
                    print("search\t\(text)\t\(scope.rawValue)\t\(fromNow ? "now" : "past")\t\(found)\t"
                          + String(format: "%.1f\t%.1f", times[times.count / 2], times[times.count - 1]))
                }
            }
        }
        all.sort()
        print("searches\t\(all.count)\t" + String(format: "%.1f\t%.1f", all[all.count / 2], all[all.count * 95 / 100]))
    }
}

extension SearchBench {
    /// The plan's in-memory part alone (``SearchPlan``): 10,000 channels x 175 programmes, a word in one title of
    /// `every` or in none, from the start and from the middle; the least of 15 runs in ms.
    static func scan() async throws {
        var entries: [ScheduleIndex.Entry] = [], texts: [ScheduleIndex.Texts] = [], slots: [ScheduleIndex.Slot] = []
        var random = SystemRandomNumberGenerator()
        for channel in 0..<10_000 {
            let first = entries.count
            for index in 0..<175 {
                let start = Int64(1_800_000_000 + index * 3456 + channel % 60 * 60)
                entries.append(ScheduleIndex.Entry(start: start, stop: start + 3456, id: Int64(entries.count + 1)))
                texts.append(ScheduleIndex.Texts(title: Int64.random(in: 1...48_000, using: &random),
                                                 body: Int64.random(in: 0...63_000, using: &random)))
            }
            slots.append(ScheduleIndex.Slot(channel: ChannelID("c\(channel)"), entries: first..<entries.count))
        }
        let schedule = ScheduleIndex(generation: 1, slots: slots, entries: entries, texts: texts, longest: 3456)
        let at = Date(unixSeconds: 1_800_000_000)
        let programme = StoredProgramme(id: ProgrammeID(rawValue: 1), source: SourceName("bench"), programme: Programme(
            channel: ChannelID("c0"), start: at, stop: at, titles: [LocalizedText("x")]), end: at)
        for (name, titles) in [("none", [Int64]()), ("rare", Array(stride(from: 1, to: 48_000, by: 2_000))),
                               ("common", Array(stride(from: 1, to: 48_000, by: 7)))] {
            for (from, after) in [("past", nil), ("middle", Date(unixSeconds: 1_800_000_000 + 80 * 3456))] {
                let store = SearchPlan.Store(texts: { _ in (titles, []) }, matching: { ids, _ in
                    Array(repeating: programme, count: ids.count)
                })
                var best = Double.infinity
                for _ in 0..<15 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try await SearchPlan.run(SearchQuery(["x"], scope: .all, limit: 100, endingAfter: after),
                                                 schedule: schedule, in: store)
                    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                print("scan\t\(name)\t\(from)\t" + String(format: "%.2f", best))
            }
        }
    }
}
