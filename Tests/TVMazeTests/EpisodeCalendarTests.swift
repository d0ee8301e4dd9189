import Foundation
import GuideCore
import GuideStore
import TestReceivers
import Testing
@testable import TVMaze

/// The iCalendar feed, checked line by line against RFC 5545 and parsed back by an independent parser (Python's
/// icalendar, Debian's python3-icalendar, which scripts/test installs).
@Suite struct EpisodeCalendarTests {
    static let show = Show.kept(id: 1, name: "Under the Dome", status: "Ended", channel: "CBS", zone: "America/New_York",
                                url: "https://www.tvmaze.com/shows/1/under-the-dome")
    static let pilot = Airing(
        show: show, episode: Episode.kept(id: 1, season: 1, number: 1, name: "Pilot", airdate: "2013-06-24", airtime: "22:00",
                                            airstamp: "2013-06-25T02:00:00+00:00", runtime: 60,
                                            url: "https://www.tvmaze.com/episodes/1/under-the-dome-1x01-pilot"),
        reminders: true, time: .instant(Date(timeIntervalSince1970: 1_372_125_600)))
    static let release = Airing(
        show: Show.kept(id: 44458, name: "Ted Lasso", channel: "Apple TV+", web: true),
        episode: Episode.kept(id: 1_800_000, season: 3, number: 1,
                                name: "Smells Like Mean Spirit; with commas, a \\ and “quotes” — and a name long enough to fold twice over",
                                airdate: "2023-03-15", airtime: ""),
        reminders: true, time: .day(CivilDate(year: 2023, month: 3, day: 15)))
    static let quiet = Airing(show: show, episode: Episode.kept(id: 2, season: 1, number: 2, name: "The Fire", runtime: 60),
                              reminders: false, time: .instant(Date(timeIntervalSince1970: 1_372_730_400)))
    static let now = Date(timeIntervalSince1970: 1_372_000_000)

    var feed: String { EpisodeCalendar.feed([Self.pilot, Self.release, Self.quiet], calendarName: "Sam's shows", leadMinutes: 15, now: Self.now) }

    /// Names and links from TVmaze are data from outside: none can start a line of its own.
    @Test func hostileNamesAndLinksCannotAddLines() {
        let hostile = Airing(
            show: Show.kept(id: 9, name: "Show\r\nBEGIN:VEVENT", channel: "CBS;X", url: "https://example.org/\r\nATTACH:file:///etc/passwd"),
            episode: Episode.kept(id: 9, season: 1, number: 1, name: "A\u{0}B\u{7}C\nEND:VCALENDAR", runtime: 60,
                                    url: "javascript:alert(1)"),
            reminders: true, time: .instant(Date(timeIntervalSince1970: 1_372_125_600)))
        let feed = EpisodeCalendar.feed([hostile], calendarName: "Sam\r\nX-EVIL:1", leadMinutes: 15, now: Self.now)
        let lines = feed.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 1)
        #expect(lines.filter { $0.hasPrefix("END:VCALENDAR") }.count == 1)
        #expect(!lines.contains { $0.hasPrefix("ATTACH") || $0.hasPrefix("X-EVIL") || $0.hasPrefix("URL:") })
        #expect(!feed.unicodeScalars.contains { $0.value < 0x20 && $0 != "\r" && $0 != "\n" })
        #expect(lines.contains(#"SUMMARY:Show\nBEGIN:VEVENT S01E01 ABC\nEND:VCALENDAR"#))
    }

    @Test func linesAreCRLFFoldedAt75OctetsAndEscaped() {
        let feed = self.feed
        #expect(feed.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") && feed.hasSuffix("END:VCALENDAR\r\n"))
        let lines = feed.components(separatedBy: "\r\n").dropLast()
        #expect(lines.allSatisfy { $0.utf8.count <= 75 && !$0.contains("\n") && !$0.contains("\r") })
        let unfolded = feed.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains(#"SUMMARY:Ted Lasso S03E01 Smells Like Mean Spirit\; with commas\, a \\ and “quotes” — and a name"#))
        #expect(unfolded.contains("UID:tvmaze-episode-1@tvguide\r\nDTSTAMP:20130623T150640Z\r\nDTSTART:20130625T020000Z\r\nDTEND:20130625T030000Z"))
        #expect(unfolded.contains("DTSTART;VALUE=DATE:20230315\r\nDTEND;VALUE=DATE:20230316"))
        #expect(unfolded.components(separatedBy: "BEGIN:VALARM").count == 3)  // not for the show with reminders off
    }

    @Test(.enabled { await ICalendarPeer.isAvailable() })
    func independentParserReadsEveryEventAndTheAlarmFiresAtTheLeadTime() async throws {
        let (name, events) = try await ICalendarPeer.read(feed)
        #expect(name == "Sam's shows")
        #expect(events.map(\.uid) == ["tvmaze-episode-1@tvguide", "tvmaze-episode-1800000@tvguide", "tvmaze-episode-2@tvguide"])
        #expect(events[0].start == "2013-06-25T02:00:00+00:00" && events[0].end == "2013-06-25T03:00:00+00:00")
        #expect(events[0].alarms == ["2013-06-25T01:45:00+00:00"])  // 15 minutes before
        #expect(events[0].description == "CBS\n“Pilot”\nhttps://www.tvmaze.com/episodes/1/under-the-dome-1x01-pilot")
        #expect(events[1].start == "2023-03-15" && events[1].end == "2023-03-16")
        #expect(events[1].summary == "Ted Lasso S03E01 " + (Self.release.episode.name ?? ""))
        #expect(events[1].alarms == ["9:00:00"])
        #expect(events[2].alarms.isEmpty)
    }
}
