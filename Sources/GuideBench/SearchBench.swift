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
