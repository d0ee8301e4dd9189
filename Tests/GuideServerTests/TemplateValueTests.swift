import Foundation
@testable import GuideApplication
import GuideCore
@testable import GuideServer
import Mustache
import Testing

/// Types the templates read through `child(named:)` instead of reflection answer every stored property by its name,
/// so a field added to one and forgotten there cannot render as nothing.
@Suite struct TemplateValueTests {
    /// Each stored property of `value` (as reflection sees it) is answered by `child(named:)`.
    static func expectEveryField(of value: some MustacheParent) {
        for case (let label?, let field) in Mirror(reflecting: value).children {
            let answered = value.child(named: label)
            #expect(answered != nil || Mirror(reflecting: field).displayStyle == .optional, "\(type(of: value)).\(label)")
            if let answered { #expect(String(describing: answered) == String(describing: Self.unwrapped(field)), "\(type(of: value)).\(label)") }
        }
    }

    static func unwrapped(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional, let first = mirror.children.first else { return value }
        return first.value
    }

    @Test func theChromeChoicesAndProgrammeDetailsAnswerEveryField() {
        var chrome = Chrome(csrf: "token", signedInName: "Ada", isAdmin: true, section: "now", assets: "abc")
        chrome.airingToday = 3
        Self.expectEveryField(of: chrome)
        Self.expectEveryField(of: Choice(value: "15", label: "15 min before", isSelected: true))
        var programme = Programme(channel: ChannelID("bbc1.uk"), start: Date(timeIntervalSince1970: 1_771_185_600),
                                  stop: Date(timeIntervalSince1970: 1_771_189_200), titles: [LocalizedText("The Film")])
        programme.subTitles = [LocalizedText("Part one")]
        programme.descriptions = [LocalizedText("A film.")]
        let stored = StoredProgramme(id: ProgrammeID(rawValue: 7), source: SourceName("test"), programme: programme,
                                     end: Date(timeIntervalSince1970: 1_771_189_200))
        let snapshot = ChannelDirectory.Snapshot(generation: 1, channels: [], positions: [:], listed: [],
                                                 playlist: [ChannelID("bbc1.uk"): PlaylistEntry(name: "BBC One", stream: "https://streams.example/bbc1")],
                                                 chosenLogos: [:], groups: [], guestGroup: nil)
        let details = ProgrammeDetails(stored, channels: snapshot, clock: ViewerClock(zone: TimeZone(identifier: "UTC")!, dayStartHour: 5),
                                       now: programme.start,
                                       airings: [ProgrammeDetails.Airing(id: 8, when: "Mon 16 Feb, 21:00", channel: "BBC One", isPast: false)],
                                       words: .english)
        Self.expectEveryField(of: details)
        Self.expectEveryField(of: details.airings[0])
        Self.expectEveryField(of: ProgrammeDetails.Line(label: "Year", value: "1999"))
        Self.expectEveryField(of: ProgrammePage.Model(chrome: chrome, title: "The Film", panel: details, isPage: true))
    }
}
