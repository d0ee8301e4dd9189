@testable import GuideStore
import GuideCore
import Testing

/// The reading thread's memory of folded texts gives what folding them again would, for texts met again, texts that
/// differ only in their normal form or case, and after it has forgotten them at its limit.
@Suite struct TextFoldingTests {
    static let texts = ["Híradó", "HÍRADÓ", "Hi\u{301}rado\u{301}", "新闻联播", "Café Society", "Cafe\u{301} Society", "", "  ", "News\nNachrichten"]

    @Test func foldsAsSearchTextDoesWhetherMetBeforeOrNot() {
        var folding = TextFolding()
        for round in 0..<2 {
            for text in Self.texts {
                #expect(folding.title(text) == SearchText.fold(text), "round \(round): \(text)")
                let folded = SearchText.fold(text)
                let body = folding.body(text)
                #expect(body.folded == folded && body.hash == (folded.isEmpty ? 0 : TextFolding.hash(folded)), "round \(round): \(text)")
            }
        }
    }

    @Test func forgetsAtItsLimitAndStillFoldsRight() {
        var folding = TextFolding()
        for number in 0..<(max(TextFolding.titleLimit, TextFolding.bodyLimit) + 50) {
            let text = "Épisode \(number)"
            #expect(folding.title(text) == SearchText.fold(text))
            #expect(folding.body(text).folded == SearchText.fold(text))
        }
        #expect(folding.title("Épisode 7") == SearchText.fold("Épisode 7"))
        #expect(folding.body("Épisode 7").folded == SearchText.fold("Épisode 7"))
        #expect(folding.remembered.titles <= TextFolding.titleLimit)
        #expect(folding.remembered.bodies <= TextFolding.bodyLimit)
    }

    @Test func forgetsLongTextsAtItsByteBoundsAndStillFoldsRight() {
        var folding = TextFolding()
        // Titles and descriptions of 64 KB: the count bounds would keep 80,000 of each (5 GB); the bytes' bounds keep
        // 8 and 32 MB.
        let long = String(repeating: "Épisode long ", count: 5_000)
        for number in 0..<600 {
            let text = long + String(number)
            #expect(folding.title(text) == SearchText.fold(text))
            #expect(folding.body(text).folded == SearchText.fold(text))
            #expect(folding.remembered.titleBytes <= TextFolding.titleBytes)
            #expect(folding.remembered.bodyBytes <= TextFolding.bodyBytes)
        }
        #expect(folding.remembered.titles < 150 && folding.remembered.bodies < 600)
        #expect(folding.title(long + "7") == SearchText.fold(long + "7"))
        #expect(folding.body(long + "7").folded == SearchText.fold(long + "7"))
        // A title longer than the titles' whole bound (9 MB; the reader takes up to 16 MB) is folded, not kept.
        let longest = String(repeating: "Épisode long ", count: 700_000)
        for _ in 0..<2 { #expect(folding.title(longest) == SearchText.fold(longest)) }
        #expect(folding.remembered.titleBytes <= TextFolding.titleBytes)
    }
}
