@testable import GuideStore
import GuideCore
import Testing

/// The reading thread's memory of folded texts gives what folding them again would, for texts met again, texts that
/// differ only in their normal form or case, and after it has forgotten them at its limit; a title met again has the
/// serial of its folding, and one folded again another.
@Suite struct TextFoldingTests {
    static let texts = ["Híradó", "HÍRADÓ", "Hi\u{301}rado\u{301}", "新闻联播", "Café Society", "Cafe\u{301} Society", "", "  ", "News\nNachrichten"]

    @Test func foldsAsSearchTextDoesWhetherMetBeforeOrNot() {
        var folding = TextFolding()
        // By index: a `String` key would take "Híradó" and its decomposed form for one text, as the memory does not.
        var serials: [Int: Int] = [:]
        for round in 0..<2 {
            for (index, text) in Self.texts.enumerated() {
                let title = folding.title(text)
                #expect(title.folded == SearchText.fold(text), "round \(round): \(text)")
                #expect(serials[index, default: title.serial] == title.serial, "round \(round): \(text)")
                serials[index] = title.serial
                let folded = SearchText.fold(text)
                let body = folding.body(text)
                #expect(body.folded == folded && body.hash == (folded.isEmpty ? 0 : TextFolding.hash(folded)), "round \(round): \(text)")
            }
        }
    }

    @Test func forgetsAtItsLimitAndStillFoldsRight() {
        var folding = TextFolding()
        let first = folding.title("Épisode 7").serial
        for number in 0..<(max(TextFolding.titleLimit, TextFolding.bodyLimit) + 50) {
            let text = "Épisode \(number)"
            #expect(folding.title(text).folded == SearchText.fold(text))
            #expect(folding.body(text).folded == SearchText.fold(text))
        }
        let again = folding.title("Épisode 7")
        #expect(again.folded == SearchText.fold("Épisode 7") && again.serial != first)
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
            #expect(folding.title(text).folded == SearchText.fold(text))
            #expect(folding.body(text).folded == SearchText.fold(text))
            #expect(folding.remembered.titleBytes <= TextFolding.titleBytes)
            #expect(folding.remembered.bodyBytes <= TextFolding.bodyBytes)
        }
        #expect(folding.remembered.titles < 150 && folding.remembered.bodies < 600)
        #expect(folding.title(long + "7").folded == SearchText.fold(long + "7"))
        #expect(folding.body(long + "7").folded == SearchText.fold(long + "7"))
        // A title longer than the titles' whole bound (9 MB; the reader takes up to 16 MB) is folded, not kept.
        let longest = String(repeating: "Épisode long ", count: 700_000)
        for _ in 0..<2 { #expect(folding.title(longest).folded == SearchText.fold(longest)) }
        #expect(folding.remembered.titleBytes <= TextFolding.titleBytes)
    }
}
