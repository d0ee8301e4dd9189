import Foundation
import GuideCore
import Testing
@testable import XMLTV

@Suite struct RadioTimesReaderTests {
    static let channel = Channel(id: ChannelID("26"), displayNames: [LocalizedText("ITV1 London")])

    static func read(_ bytes: [UInt8]) throws -> (programmes: [Programme], issues: IssueLog) {
        var reader = RadioTimesReader(channel: channel)
        var programmes: [Programme] = []
        let collect: (XMLTVItem) -> Void = { if case .programme(let programme, _) = $0 { programmes.append(programme) } }
        try reader.feed(bytes, collect)
        try reader.finish(collect)
        return (programmes, reader.issues)
    }

    @Test func readsTheRealFeed() throws {
        let result = try Self.read(try Fixture.bytes("radiotimes/26.dat"))
        // Facts from radiotimes-format.md: 383 rows, first Daybreak 07/03/2011 06:00 GMT, last ITV Nightscreen.
        #expect(result.programmes.count == 383)
        let first = try #require(result.programmes.first)
        #expect(first.title == "Daybreak")
        #expect(CivilTime.iso8601(first.start) == "2011-03-07T06:00:00Z")
        #expect(first.stop.map(CivilTime.iso8601) == "2011-03-07T08:30:00Z")
        #expect(result.programmes.last?.title == "ITV Nightscreen")
        #expect(result.programmes.last.map { CivilTime.iso8601($0.start) } == "2011-03-21T04:20:00Z")
        #expect(result.programmes.filter(\.isPremiere).count == 1)
        #expect(result.programmes.filter(\.isRepeat).count == 54)
        #expect(result.programmes.filter(\.isNew).count == 4)
        #expect(result.programmes.filter { $0.subtitles.contains { $0.type == "teletext" } }.count == 329)
        #expect(result.programmes.filter { $0.subtitles.contains { $0.type == "deaf-signed" } }.count == 13)
        #expect(result.programmes.filter { $0.video?.aspect == "16:9" }.count == 359)
        #expect(result.programmes.filter { $0.categories.first?.text == "Film" }.count == 14)
        #expect(result.programmes.filter { $0.stop == $0.start }.count == 36)
        #expect(result.issues.total == 0)
    }

    @Test func mapsFilmsWithStarsCertificateAndCast() throws {
        let result = try Self.read(try Fixture.bytes("radiotimes/26.dat"))
        let graffiti = try #require(result.programmes.first { $0.title == "American Graffiti" })
        #expect(graffiti.date == "1973")
        #expect(graffiti.starRatings.contains(Rating(system: "Radio Times Film Rating", value: "5/5")))
        #expect(graffiti.ratings == [Rating(system: "BBFC", value: "PG")])
        #expect(CivilTime.iso8601(graffiti.start) == "2011-03-17T02:30:00Z")
        #expect(graffiti.credits.contains { $0.role == .director })
        #expect(graffiti.credits.contains { $0.role == .actor && $0.character != nil })
        let casino = result.programmes.filter { $0.title == "Casino Royale" }
        #expect(casino.map { CivilTime.iso8601($0.start) } == ["2011-03-19T22:15:00Z", "2011-03-19T23:45:00Z"])
    }

    @Test func readsSeriesNumbering() throws {
        #expect(RadioTimesNumbering("1/6, series 4").xmltvNS?.xmltvValue == "3.0/6.")
        #expect(RadioTimesNumbering("26/35, series 3").xmltvNS?.xmltvValue == "2.25/35.")
        #expect(RadioTimesNumbering("5861").xmltvNS?.xmltvValue == ".5860.")
        #expect(RadioTimesNumbering("series 8").xmltvNS?.xmltvValue == "7..")
        #expect(RadioTimesNumbering("7558&7559").xmltvNS?.episode == 7558)
        #expect(RadioTimesNumbering("1/2/6, series 1").xmltvNS == XMLTVNSNumber(season: 1, episode: 1, episodeCount: 6))
        #expect(RadioTimesNumbering("").xmltvNS == nil)
    }

    /// The clocks went forward on 27 March 2011 at 01:00 GMT and back on 30 October 2011 at 02:00 BST.
    @Test func convertsUKLocalTimeAcrossBothClockChanges() throws {
        func row(_ title: String, _ date: String, _ time: String, _ minutes: Int) -> String {
            "\(title)~~~~~~false~false~false~false~false~false~false~false~~~News~~false~\(date)~\(time)~~\(minutes)"
        }
        let feed = ["\t", "In accessing this XML feed, you agree ...",
                    row("Before spring", "26/03/2011", "23:30", 60),
                    row("After spring", "27/03/2011", "03:00", 60),
                    row("(BST) First 01:30", "30/10/2011", "01:30", 30),
                    row("(GMT) Second 01:30", "30/10/2011", "01:30", 30),
                    row("After autumn", "30/10/2011", "12:00", 30)].joined(separator: "\r\n") + "\r\n"
        let result = try Self.read(Array(feed.utf8))
        let starts = result.programmes.map { "\($0.title) \(CivilTime.iso8601($0.start))" }
        #expect(starts == [
            "Before spring 2011-03-26T23:30:00Z",
            "After spring 2011-03-27T02:00:00Z",
            "First 01:30 2011-10-30T00:30:00Z",
            "Second 01:30 2011-10-30T01:30:00Z",
            "After autumn 2011-10-30T12:00:00Z",
        ])
        // Stop is start + duration, so the 60 minutes before the change stay 60 minutes.
        #expect(result.programmes[0].stop.map(CivilTime.iso8601) == "2011-03-27T00:30:00Z")
    }

    @Test func skipsShortLinesWithAReport() throws {
        let valid = "News~~~~~~false~false~false~false~false~false~false~false~~~News~~false~01/01/2011~18:00~~30"
        let result = try Self.read(Array("\t\nIn accessing this XML feed\nnot~enough~fields\n\(valid)\n".utf8))
        #expect(result.programmes.map(\.title) == ["News"])
        #expect(result.issues.counts[.skipped] == 1)
        #expect(result.issues.issues.first?.line == 3)
    }
}
