import Foundation
@testable import GuideStore
import GuideCore
import Testing

/// An import knows a title's id by the folding its programmes share, and by its folded text when the folding is
/// another (two imports' readers, a title forgotten and folded again): never another title's id.
@Suite struct KnownTitlesTests {
    static func programme(_ title: String, folding: inout TextFolding) -> PreparedProgramme {
        PreparedProgramme(Programme(channel: ChannelID("a"), start: Date(unixSeconds: 1_700_000_000),
                                    titles: [LocalizedText(title)]), line: nil, folding: &folding)
    }

    @Test func findsATitleByItsFoldingAndByItsText() {
        var reader = TextFolding(), other = TextFolding()
        let news = Self.programme("News", folding: &reader)
        var titles = KnownTitles(holdsEveryTitle: true)
        #expect(titles.id(of: news) == nil)
        titles.remember(7, for: news)
        let again = Self.programme("News", folding: &reader)
        #expect(again.titleSerial == news.titleSerial && titles.id(of: again) == 7)
        // Folded by another reader, or the same title as another text: by its folded text.
        let elsewhere = Self.programme("NEWS", folding: &other)
        #expect(elsewhere.titleSerial != news.titleSerial && titles.id(of: elsewhere) == 7)
        // Another title, whichever folding made it, is not known: each folding in the process has its own serial.
        for title in ["Weather", "News at Ten"] {
            #expect(titles.id(of: Self.programme(title, folding: &other)) == nil)
            var fresh = TextFolding()
            #expect(titles.id(of: Self.programme(title, folding: &fresh)) == nil)
        }
        #expect(titles.holdsEveryTitle)
    }

    @Test func forgetsEveryTitleAtItsLimitAndSaysSo() {
        var folding = TextFolding()
        var titles = KnownTitles(holdsEveryTitle: true)
        let first = Self.programme("Title 0", folding: &folding)
        titles.remember(1, for: first)
        for number in 1...TextCache.limit {
            titles.remember(Int64(number + 1), for: Self.programme("Title \(number)", folding: &folding))
        }
        #expect(!titles.holdsEveryTitle)
        #expect(titles.id(of: first) == nil)
        let last = Self.programme("Title \(TextCache.limit)", folding: &folding)
        #expect(titles.id(of: last) == Int64(TextCache.limit + 1))
    }
}
