import GuideCore
@testable import GuideStorePostgres
import Testing

/// The titles and bodies packed in memory for words shorter than a trigram (``PackedTexts``): a term is found in
/// every text that holds it, wherever in the text, never across two texts, in both parts of a large set.
struct PackedTextsTests {
    /// What a plain `contains` over each text finds.
    static func holding(_ term: String, in texts: [String]) -> [Int64] {
        texts.indices.filter { texts[$0].utf8.contains(term.utf8) }.map { Int64($0) + 1 }
    }

    static func packed(_ texts: [String]) -> PackedTexts {
        var packed = PackedTexts(reserving: (texts.count, texts.reduce(0) { $0 + $1.utf8.count + 1 }))
        for (index, text) in texts.enumerated() { packed.append(Int64(index) + 1, text.utf8) }
        return packed
    }

    @Test func aTermIsFoundAtEitherEndAndNeverAcrossTwoTexts() async {
        let texts = ["新闻联播", "today's 新闻", "ab", "cd", "x", "", "新", "闻", "早间新闻早间新闻"]
        let packed = Self.packed(texts)
        #expect(await packed.holding("新闻") == [1, 2, 9])
        #expect(await packed.holding("bc") == [])   // "ab" then "cd": not one text.
        #expect(await packed.holding("x") == [5])
        #expect(await packed.holding("闻") == [1, 2, 8, 9])
        #expect(await Self.packed([]).holding("x") == [])
    }

    /// 30,000 texts are looked through in two parts at once; each part's first and last texts are found too.
    @Test func aLargeSetIsReadInTwoPartsAndFindsWhatEachTextHolds() async {
        let words = ["新闻", "天气", "news", "体育", "ab"]
        var texts = (0..<30_000).map { index in
            (0..<(index % 4)).map { words[(index * 7 + $0 * 3) % words.count] }.joined(separator: " ")
        }
        for place in [0, 14_999, 15_000, 29_999] { texts[place] = "新闻 at \(place)" }   // Each part's ends.
        let packed = Self.packed(texts)
        for term in ["新闻", "天气", "s 体", "ab", "b 新", "z"] {
            let found = await packed.holding(term)
            #expect(found == Self.holding(term, in: texts), "\(term)")
        }
        #expect(Set([1, 15_000, 15_001, 30_000]).isSubset(of: await packed.holding("新闻")))
    }

    /// The zero byte between texts is what keeps a match inside one: a stranger's search that holds one (or another
    /// control character) is split there into terms without it, so no term reaches the scan with a zero byte.
    @Test func aSearchHoldingAZeroByteNeverMatchesAcrossTwoTexts() async {
        let packed = Self.packed(["abc", "def", "c d"])
        for typed in ["c\u{0}d", "\u{0}", "c\u{0}\u{0}d", "c\u{1}d", "\u{0}c\u{7F}"] {
            let terms = SearchQuery([typed]).terms
            #expect(terms.allSatisfy { !$0.utf8.contains(0) }, "\(typed.debugDescription): \(terms)")
            for term in terms {
                #expect(await packed.holding(term) == Self.holding(term, in: ["abc", "def", "c d"]), "\(term)")
            }
        }
        #expect(SearchQuery(["c\u{0}d"]).terms == ["c", "d"])
    }
}
