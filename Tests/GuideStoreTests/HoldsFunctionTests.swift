import GRDB
@testable import GuideStoreSQLite
import Testing

/// `holds()`, the substring test SQLite's searches use, against SQLite's `instr` (what it replaced) on texts where a
/// byte search could go wrong: the term at either end or longer than the text, repeated prefixes, every script the
/// guides carry, characters sharing their last byte.
@Suite struct HoldsFunctionTests {
    static let texts = ["", "a", "news", "world news", "aaab", "abab", "新闻联播", "今日新闻", "新", "闻新", "híradó", "hirado",
                        "ニュース７", "ース", "família", "famılia", "café society", "x\u{301}", "新闻新闻", "𝄞 music 𝄞"]

    @Test func agreesWithInstrOnEveryPairOfTexts() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try HoldsFunction.register(db) }
        let terms = Self.texts + ["b", "ab", "aab", "闻", "新闻", "联播", "ó", "o", "ı", "\u{301}", "𝄞", "c s", "ニュ"]
        try queue.read { db in
            for text in Self.texts {
                for term in terms {
                    let row = try #require(try Row.fetchOne(db, sql: "SELECT holds(?1, ?2), instr(?1, ?2) > 0", arguments: [text, term]))
                    #expect(row[0] as Bool == row[1] as Bool, "holds(\(text), \(term))")
                }
            }
            #expect(try DatabaseValue.fetchOne(db, sql: "SELECT holds(NULL, 'a')") == .null)
            #expect(try DatabaseValue.fetchOne(db, sql: "SELECT holds('a', NULL)") == .null)
        }
    }
}
