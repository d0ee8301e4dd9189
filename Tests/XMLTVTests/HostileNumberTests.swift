import Foundation
import GuideCore
import Testing
@testable import XMLTV

/// Numbers in listings that once trapped the reader (Swift's overflow check): each is now a repair in the report.
@Suite struct HostileNumberTests {
    static func programme(_ inner: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <tv><programme start="20240101180000 +0000" channel="c"><title>T</title>\(inner)</programme>
        <programme start="20240101190000 +0000" stop="20240101200000 +0000" channel="c"><title>U</title></programme></tv>
        """
    }

    @Test(arguments: ["hours", "minutes", "seconds"], ["9223372036854775807", "9223372036854775808", "-1", "1e308", "nan", "745"])
    func absurdLengthsAreIgnoredAndReported(units: String, value: String) throws {
        let result = try XMLTVReader.read(Array(Self.programme("<length units=\"\(units)\">\(value)</length>").utf8))
        #expect(result.programmes.count == 2)
        if units == "hours" || value != "745" {
            #expect(result.programmes[0].length == nil)
            #expect(result.issues.counts[.invalidValue] == 1)
            #expect(result.issues.issues.first?.message.description.contains("length") == true)
        }
    }

    @Test func lengthsInRangeAreKept() throws {
        let result = try XMLTVReader.read(Array(Self.programme("<length units=\"hours\">744</length>").utf8))
        #expect(result.programmes[0].length == 744 * 3600)
    }

    @Test func absurdEpisodeNumbersAndIconSizesAreLeftUnread() throws {
        let inner = """
            <episode-num system="xmltv_ns">9223372036854775807.9223372036854775807/9223372036854775807.</episode-num>
            <icon src="http://example.org/a.png" width="9223372036854775808" height="-9223372036854775809"/>
            """
        let result = try XMLTVReader.read(Array(Self.programme(inner).utf8))
        let programme = try #require(result.programmes.first)
        #expect(programme.episodeNumbers.first?.value.hasPrefix("9223372036854775807") == true, "the text is kept")
        #expect(programme.episodeNumbers.first?.xmltvNS == nil)
        #expect(programme.episodeLabel == nil)
        #expect(programme.icons.first?.width == nil && programme.icons.first?.height == nil)
    }

    /// Character references past Unicode, signed, in floating point or not numbers at all are kept as written and
    /// counted, and the text around them (an entity first, between them and last) is read on: the decoding finds each
    /// `&` by memchr and parses the number in it, stopping past U+10FFFF before it can overflow.
    @Test(arguments: ["&#9223372036854775807;", "&#99999999999;", "&#xFFFFFFFF;", "&#x110000;", "&#-1;", "&#1e308;",
                      "&#nan;", "&nan;"])
    func absurdCharacterReferencesAreKeptAsWritten(reference: String) throws {
        let text = "&amp;" + reference + " &lt;" + reference + "&#233;"
        let result = try HostileInputTests.read(Array(Self.programme("<desc>\(text)</desc>").utf8), chunk: 3)
        #expect(result.programmes.first?.description == "&" + reference + " <" + reference + "é")
        #expect(result.issues.counts[.unknownEntity] == 2)
    }

    /// A Radio Times row (23 tilde-separated fields) with `duration` and `date` set.
    static func radioTimesRow(duration: String, date: String = "10/03/2011", time: String = "19:00") -> String {
        var fields = Array(repeating: "", count: 23)
        fields[0] = "Emmerdale"
        fields[19] = date
        fields[20] = time
        fields[22] = duration
        for flag in 6...13 { fields[flag] = "false" }
        return fields.joined(separator: "~")
    }

    @Test(arguments: ["9223372036854775807", "-1", "1e308", "44641"])
    func absurdRadioTimesDurationsSkipTheRow(duration: String) throws {
        let text = "In accessing this XML feed, you agree...\n" + Self.radioTimesRow(duration: duration) + "\n"
            + Self.radioTimesRow(duration: "30", time: "20:00") + "\n"
        let result = try RadioTimesReaderTests.read(Array(text.utf8))
        #expect(result.programmes.map(\.title) == ["Emmerdale"])
        #expect(result.programmes.first?.stop?.timeIntervalSince(result.programmes[0].start) == 1800)
        #expect(result.issues.counts[.skipped] == 1)
    }

    @Test(arguments: ["10/03/99999999999999999", "99999999999999999/03/2011", "10/99999999999999999/2011", "29/02/2011"])
    func absurdRadioTimesDatesSkipTheRow(date: String) throws {
        let text = "In accessing this XML feed, you agree...\n" + Self.radioTimesRow(duration: "30", date: date) + "\n"
        let result = try RadioTimesReaderTests.read(Array(text.utf8))
        #expect(result.programmes.isEmpty)
        #expect(result.issues.counts[.skipped] == 1)
    }

    /// A kept timestamp answers only for the same bytes: starts and stops in turn, hostile ones among them, read
    /// through one ``XMLTVTimestamp/Recent`` as each alone.
    @Test func theTimestampKeptAnswersOnlyForItsOwnBytes() {
        let texts = ["20240101180000 +0000", "20240101190000 +0000", "20240101190000 +0000", "20240101190000 +0100",
                     "2024010119000 +0000", "9223372036854775807", "-1", "1e308", "nan", "", "20240101190000 +0000",
                     String(repeating: "2", count: 80), "20240101190000 +0000"]
        var recent = XMLTVTimestamp.Recent()
        for text in texts {
            let bytes = Array(text.utf8)
            let kept = bytes.withUnsafeBufferPointer { recent.parse($0[...], localZone: nil) }
            #expect(kept == XMLTVTimestamp.parse(bytes), "\(text)")
        }
    }

    /// A stop on its start's day is the kept instant moved by the time between them, only where nothing else differs:
    /// each read through one ``XMLTVTimestamp/Recent`` as alone, in a zone of the timestamp's or a local one (whose
    /// offset moves within a day: Europe/London on 2024-03-31 and 2024-10-27).
    @Test(arguments: [nil, "Europe/London"])
    func aTimeOfDayMovesTheKeptInstantOnlyWhereNothingElseDiffers(zone: String?) {
        let local = zone.flatMap(TimeZone.init(identifier:))
        let texts = ["20240331003000 +0000", "20240331013000 +0000", "20240331023000 +0000", "20240331023000 +0100",
                     "20240331033000 +0100", "20240331033000 +01:00", "20240331043000 +01:00",
                     "20240331043000 Europe/London",
                     "20240331013000 Europe/London", "20240331020000 Europe/London", "20240331235960 +0000",
                     "20240331240000 +0000", "20240331235959 +0000", "20240331246000 +0000", "20240331235900 +0000",
                     "20240332010000 +0000", "20240401010000 +0000", " 2024040101000 +0000", " 2024040102000 +0000",
                     "202404010100 +0000", "202404010200 +0000", "20241027003000", "20241027013000", "20241027023000",
                     "20241027a23000", "20241027023000", "2024102702300x", "20241027023000 -0230",
                     "20241027120000 -0230",
                     "20241027120000 +2400", "20241027130000 +2400", "20241027130000 BST", "20241027140000 BST",
                     // Hostile ones of a kept timestamp's length, each after one that parses.
                     "20240331003000 +0000", "20240331999999 +0000", "20240331003000 +0000", "20240331-10000 +0000",
                     "20240331003000 +0000", "20240331nan000 +0000", "20240331003000 +0000", "202403311e3080 +0000",
                     "20240331003000 +0000", "9223372036854775807 ", "20240331003000 +0000", "20240331003000 +9999",
                     "9223372036854775807", "-1", "1e308", "nan"]
        var recent = XMLTVTimestamp.Recent()
        for text in texts {
            let bytes = Array(text.utf8)
            let kept = bytes.withUnsafeBufferPointer { recent.parse($0[...], localZone: local) }
            #expect(kept == XMLTVTimestamp.parse(bytes, localZone: local), "\(text) in \(zone ?? "its own zone")")
        }
    }
}

