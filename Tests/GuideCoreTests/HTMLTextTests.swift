import GuideCore
import GuideWebFormats
import Testing

@Suite struct HTMLTextTests {
    @Test func summaryHTMLBecomesParagraphsAndOneLine() {
        let html = "<p><b>Under the Dome</b> is the story of a small town&#39;s <i>dome</i>.</p><p>Season&nbsp;1 &amp; 2<br>ahead</p>"
        #expect(HTMLText.paragraphs(html) == ["Under the Dome is the story of a small town's dome.", "Season 1 & 2", "ahead"])
        #expect(HTMLText.plain(html) == "Under the Dome is the story of a small town's dome. Season 1 & 2 ahead")
        #expect(HTMLText.paragraphs(nil).isEmpty && HTMLText.plain("") == "")
    }
}
