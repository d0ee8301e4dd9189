import Foundation
import GRDB
import GuideCore
import StoreTestSupport
import Synchronization
import Testing
@testable import GuideStore
@testable import GuideStoreSQLite

/// The trigram indexes' tokenizer (``WordTrigrams``): trigrams within words, once a text, and searches that find
/// what checking every programme finds.
@Suite struct WordTrigramsTests {
    @Test func wordsEndWhereASearchSplitsItsWords() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let splits = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            #expect(WordTrigrams.isSeparator(value) == splits, "U+\(String(value, radix: 16))")
        }
    }

    @Test(arguments: [
        ("doctor who", ["doc", "oct", "cto", "tor", "who"]),
        ("banana", ["ban", "ana", "nan"]),
        ("o'brien", ["o'b", "'br", "bri", "rie", "ien"]),
        ("ab cd", []),
        ("新闻联播", ["新闻联", "闻联播"]),
        ("café\u{3000}noir\tnoir", ["caf", "afé", "noi", "oir"]),
    ] as [(String, [String])])
    func aTextsTrigramsAreThoseWithinItsWordsOnce(text: String, trigrams: [String]) {
        #expect(WordTrigrams.trigrams(of: text) == trigrams)
    }

    @Test func aByteThatBeginsNoCharacterEndsAWord() {
        let bytes: [UInt8] = Array("ab".utf8) + [0xFF] + Array("cde".utf8) + [0xE6, 0x96] + Array("fgh".utf8)
        var found: [String] = []
        let finished = bytes.withUnsafeBufferPointer { buffer in
            WordTrigrams.forEach(in: buffer) { range, _ in
                found.append(String(decoding: buffer[range], as: UTF8.self))
                return true
            }
        }
        #expect(finished && found == ["cde", "fgh"])
    }

    /// A text with more distinct trigrams than the per-text set keeps (32,768) still yields every one of them: once
    /// the set is full, every trigram after is yielded, repeats too (FTS5 keeps each once itself).
    @Test func aTextPastTheSetsBoundYieldsEveryTrigram() {
        let scalars = (UInt32(0x4E00)..<0x17000).compactMap(Unicode.Scalar.init).prefix(40_000)
        var word = String.UnicodeScalarView()
        word.append(contentsOf: scalars)
        let text = String(word)
        let found = WordTrigrams.trigrams(of: text + " " + text)
        let expected = (0..<(scalars.count - 2)).map { start in
            var trigram = String.UnicodeScalarView()
            trigram.append(contentsOf: scalars.dropFirst(start).prefix(3))
            return String(trigram)
        }
        #expect(scalars.count == 40_000 && Set(found) == Set(expected))
        #expect(found.count == 2 * expected.count, "the set full within the first copy: the second yielded whole")
    }

    /// Two trigrams that share a code, as PostgreSQL's indexes keep them (``WordTrigrams/code(of:)``): a search for
    /// one finds the texts holding it, not those holding the other. The term is four characters, so PostgreSQL asks
    /// its index (shorter ones are found in memory), and the title that does not hold it holds both of its codes.
    @Test func aCodeTwoTrigramsShareFindsOnlyTheTextsHoldingTheTerm() async throws {
        let (held, asked) = try #require(Self.twoTrigramsSharingACode())
        let term = asked + "字", other = String(term.unicodeScalars.dropFirst())
        #expect(WordTrigrams.codes(of: term) == WordTrigrams.codes(of: held + " " + other))
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("c", "20240101200000", "20240101210000", held + " " + other),
            ("c", "20240101210000", "20240101220000", "x" + term + "x"),
        ], channels: ["c"]))
        for scope in [SearchQuery.Scope.title, .all] {
            let found = try await fixture.store.search(SearchQuery([term], scope: scope)).map(\.programme.title)
            #expect(found == ["x" + term + "x"], "\(held) and \(asked) share a code; \(scope)")
        }
    }

    /// Two distinct trigrams of CJK ideographs (each its own folded form) with the same code, drawn in a fixed
    /// order: the codes of neighbouring characters' trigrams never meet (2.56 million of them tried), those of
    /// trigrams drawn at random do after about 80,000.
    static func twoTrigramsSharingACode() -> (String, String)? {
        var state: UInt64 = 46, seen: [Int32: String] = [:]
        func ideograph() -> String {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = 0x4E00 + UInt32(truncatingIfNeeded: state >> 33) % (0x9FA5 - 0x4E00)
            return Unicode.Scalar(value).map(String.init) ?? ""
        }
        for _ in 0..<2_000_000 {
            let trigram = ideograph() + ideograph() + ideograph()
            guard SearchText.fold(trigram) == trigram, let code = WordTrigrams.codes(of: trigram).first else {
                continue
            }
            if let before = seen.updateValue(trigram, forKey: code), before != trigram { return (before, trigram) }
        }
        return nil
    }

    /// What the index holds: the codes of the trigrams within the bodies' words (v41), and nothing else, so no
    /// trigram that spans two words.
    @Test func theIndexesHoldTheTrigramsWithinWords() async throws {
        let path = TestScratch.folder("tvguide-trigrams") + "/guide.sqlite"
        let store = try SQLiteListingStore(path: path, now: { Date() })
        let fixture = StoreFixture(location: path, store: store)
        try await fixture.importFixture("peer-fixtures/node-xmltv/eu_listings.xml")
        let (codes, bodies) = try await DatabaseQueue(path: path).read { db in
            (Set(try Int64.fetchAll(db, sql: "SELECT code FROM body_postings").map { Int32($0) }),
             try String.fetchAll(db, sql: "SELECT folded FROM body"))
        }
        let within = Set(bodies.flatMap { WordTrigrams.codes(of: $0) })
        let across = Set(bodies.flatMap { WordTrigrams.codes(of: $0.replacingOccurrences(of: " ", with: "")) })
        #expect(codes.count > 1000 && codes == within && !across.isSubset(of: codes))
        try await TrigramIndexTests.expectIndexesAgree(fixture)
    }

    /// Every word of a real guide's titles and descriptions, and their first three and four characters, searched in
    /// everything: the same programmes, in the same order, as checking each programme's folded texts.
    @Test func aRealGuidesWordsFindWhatCheckingEveryProgrammeFinds() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importFixture("peer-fixtures/node-xmltv/eu_listings.xml")
        let rows = Mutex<[(id: Int64, start: Date, title: String, body: String)]>([])
        try await fixture.store.forEachProgramme { stored in
            let prepared = PreparedProgramme(stored.programme, line: nil)
            let row = (stored.id.rawValue, stored.programme.start, prepared.foldedTitle, prepared.foldedBody)
            rows.withLock { $0.append(row) }
        }
        let programmes = rows.withLock { $0 }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        var terms = Set<String>()
        for programme in programmes {
            for word in (programme.title + " " + programme.body).split(whereSeparator: \.isWhitespace) {
                terms.insert(String(word))
                terms.insert(String(word.prefix(3)))
                terms.insert(String(word.prefix(4)))
            }
        }
        #expect(terms.count > 2000)
        // Every fourth, in a fixed order: enough of each kind without a long test.
        for (index, term) in terms.sorted().enumerated() where index % 4 == 0 {
            let query = SearchQuery([term], scope: .all, limit: 1000)
            let expected = programmes.filter { query.matches(folded: $0.title) || query.matches(folded: $0.body) }
                .map(\.id)
            let found = try await fixture.store.search(query).map(\.id.rawValue)
            #expect(found == expected, "\(term)")
        }
    }
}
