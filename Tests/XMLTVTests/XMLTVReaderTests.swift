import Foundation
import GuideCore
import Testing
@testable import XMLTV

@Suite struct XMLTVReaderTests {
    @Test func readsUTF8WithByteOrderMark() throws {
        let result = try Fixture.read("ours/utf8-bom.xml")
        #expect(result.programmes.map(\.title) == ["Café crème"])
    }

    @Test func transcodesLatin1() throws {
        let result = try Fixture.read("ours/latin1.xml")
        #expect(result.programmes.map(\.title) == ["Café crème à la télé"])
        #expect(result.issues.total == 0)
    }

    @Test func transcodesWindows1252() throws {
        let result = try Fixture.read("ours/windows1252.xml")
        #expect(result.programmes.map(\.title) == ["It’s “quoted” – €5"])
    }

    @Test func readsWithoutXMLDeclaration() throws {
        let result = try Fixture.read("ours/no-declaration.xml")
        #expect(result.programmes.map(\.title) == ["Plain"])
        #expect(result.programmes.first?.stop == Fixture.date("20240101210000 +0000"))
    }

    @Test func readsSingleAndDoubleQuotedAttributes() throws {
        let result = try Fixture.read("ours/quotes.xml")
        #expect(result.channels.map(\.id.rawValue) == ["single.quoted"])
        #expect(result.channels.first?.displayNames == [LocalizedText("Single 'n' \"Double\"", language: "en")])
        #expect(result.programmes.first?.titles == [LocalizedText("He said \"hi\"", language: "en")])
        #expect(result.programmes.first?.start == Fixture.date("20240101200000"))
    }

    @Test func decodesPredefinedEntitiesAndCharacterReferences() throws {
        let result = try Fixture.read("ours/entities.xml")
        #expect(result.channels.first?.id == ChannelID("a&b"))
        #expect(result.programmes.first?.channel == ChannelID("a&b"))
        #expect(result.programmes.first?.title == "Tom & Jerry <3 > \"Q\" 'A' éé📺")
        // Given an entity XML does not define, when read, then it is kept as written and reported.
        #expect(result.programmes.first?.description == "Unknown &nbsp; entity kept")
        #expect(result.issues.counts[.unknownEntity] == 1)
    }

    @Test func readsCDATAAndSkipsCommentsAnywhere() throws {
        let result = try Fixture.read("ours/cdata-comments.xml")
        #expect(result.programmes.map(\.title) == ["Fish & <Chips> tonight"])
        #expect(result.programmes.first?.description == "Plain")
        #expect(result.programmes.first?.titles.count == 1)
    }

    @Test func readsElementsInAnyOrderAndIgnoresUnknownOnes() throws {
        let result = try Fixture.read("ours/out-of-order.xml")
        let programme = try #require(result.programmes.first)
        #expect(programme.title == "Title last")
        #expect(programme.description == "Description first")
        #expect(programme.categories == [LocalizedText("Drama", language: "en")])
        #expect(programme.numbering == XMLTVNSNumber(season: 2, episode: 5, episodeCount: 8, part: 1, partCount: 2))
        #expect(programme.numbering?.label == "S2 E5 of 8 (part 1 of 2)")
        #expect(programme.onScreenNumber == "S2E5")
        #expect(programme.credits == [
            Credit(role: .actor, name: "Ann Actor", character: "Hero"),
            Credit(role: .director, name: "Dee Rector"),
            Credit(role: .guest, name: "Gus Guest", isGuest: true),
        ])
        #expect(programme.ratings == [Rating(system: "BBFC", value: "15")])
        #expect(programme.starRatings == [Rating(system: "TV Guide", value: "3/4")])
        #expect(programme.video == Video(isColour: false, aspect: "16:9", quality: "HDTV"))
        #expect(programme.audio == Audio(stereo: "dolby digital"))
        #expect(programme.length == 3600)
        #expect(programme.isNew && programme.isPremiere && programme.isLastChance && programme.isRepeat)
        #expect(programme.previouslyShown == PreviouslyShown(start: "20230101", channel: "c2"))
        #expect(programme.subtitles == [Subtitles(type: "teletext", language: LocalizedText("English"))])
        #expect(result.channels.first?.number == "101")
        #expect(result.channels.first?.icons == [Icon(src: "http://example.com/c1.png")])
    }

    @Test func readsEveryTimestampFormTheDTDAllows() throws {
        let result = try Fixture.read("ours/timestamps.xml")
        let starts = Dictionary(result.programmes.map { ($0.channel.rawValue, CivilTime.iso8601($0.start)) },
                                uniquingKeysWith: { first, _ in first })
        #expect(starts == [
            "y": "2024-01-01T00:00:00Z", "ym": "2024-02-01T00:00:00Z", "ymd": "2024-02-29T00:00:00Z",
            "ymdh": "2024-02-29T13:00:00Z", "ymdhm": "2024-02-29T13:30:00Z", "full": "2024-02-29T13:30:45Z",
            "plus": "2024-02-29T12:00:45Z", "minus": "2024-02-29T18:30:45Z", "named": "2024-02-29T12:30:45Z",
            "olson": "2024-02-29T12:30:45Z", "h24": "2024-03-01T00:00:00Z",
        ])
        // Given bogus dates, then those programmes are skipped and each is reported with its line.
        let skipped = result.issues.issues.filter { $0.kind == .skipped }
        #expect(skipped.map(\.line) == [14, 15])
    }

    @Test func neverExpandsDoctypeEntities() throws {
        let result = try Fixture.read("ours/doctype-entities.xml")
        #expect(result.programmes.first?.title == "&lol3;")
        #expect(result.programmes.first?.description == "&xxe;")
        #expect(result.issues.counts[.doctypeIgnored] == 1)
    }

    @Test(arguments: [
        ("ours/malformed-mismatch.xml", XMLTVError.Code.malformed, 4),
        ("ours/malformed-truncated.xml", .truncated, 5),
        ("ours/malformed-attribute.xml", .malformed, 2),
        ("peer-fixtures/ektotv-xmltv/broken.xml", .malformed, nil),
    ] as [(String, XMLTVError.Code, Int?)])
    func reportsMalformedInputWithLineAndColumn(file: String, code: XMLTVError.Code, line: Int?) throws {
        let bytes = try Fixture.bytes(file)
        let error = try #require(throws: XMLTVError.self) { try XMLTVReader.read(bytes) }
        #expect(error.code == code)
        #expect(error.line != nil && error.column != nil)
        if let line { #expect(error.line == line) }
    }

    @Test func reportsProgrammeLevelProblemsAndKeepsTheRest() throws {
        let result = try Fixture.read("ours/repairs.xml")
        #expect(result.programmes.count == 7)
        #expect(result.programmes[1].stop == nil)
        #expect(result.issues.counts[.stopBeforeStart] == 1)
        #expect(result.issues.counts[.skipped] == 2)
        #expect(result.issues.issues.first { $0.kind == .stopBeforeStart }?.line == 4)
    }

    @Test func repairsInvalidUTF8AndReportsIt() throws {
        // Given a Latin-1 byte in a file that says it is UTF-8,
        let bytes = Array("<tv><programme start=\"2024\" channel=\"c\"><title>Caf".utf8) + [0xE9]
            + Array("</title></programme></tv>".utf8)
        let result = try XMLTVReader.read(bytes)
        // then the character becomes U+FFFD and the report says so.
        #expect(result.programmes.first?.title == "Caf\u{FFFD}")
        #expect(result.issues.counts[.invalidEncoding] == 1)
    }

    /// A programme's channel written as the one before it is that channel, and one written otherwise is its own; an
    /// unknown entity or a byte not UTF-8 in it is counted each time it is read, not once for the run.
    @Test func channelsWrittenAlikeAndNotAreEachRead() throws {
        let channels = ["a.long.channel.identifier", "a.long.channel.identifier", "b.long.channel.identifier",
                        "a.long.channel.identifier", "x&unknown;", "x&unknown;", "short", "short"]
        var bytes = Array("<tv>".utf8)
        for (index, channel) in channels.enumerated() {
            let start = "202401010\(index)0000 +0000"
            bytes += Array("<programme start=\"\(start)\" channel=\"\(channel)\"><title>T</title></programme>".utf8)
        }
        bytes += Array("<programme start=\"20240101090000 +0000\" channel=\"caf".utf8) + [0xE9]
            + Array("\"><title>T</title></programme>".utf8)
        bytes += Array("<programme start=\"20240101091000 +0000\" channel=\"caf".utf8) + [0xE9]
            + Array("\"><title>T</title></programme></tv>".utf8)
        let result = try XMLTVReader.read(bytes)
        #expect(result.programmes.map(\.channel.rawValue) == channels + ["caf\u{FFFD}", "caf\u{FFFD}"])
        #expect(result.issues.counts[.unknownEntity] == 2)
        #expect(result.issues.counts[.invalidEncoding] == 2)
    }

    @Test func rejectsFilesThatAreNotXMLTV() throws {
        let html = Array("<html><body>Not found</body></html>".utf8)
        let error = try #require(throws: XMLTVError.self) { try XMLTVReader.read(html) }
        #expect(error.code == .notXMLTV)
        let utf16 = [UInt8]([0xFF, 0xFE, 0x3C, 0x00])
        #expect(throws: XMLTVError.self) { try XMLTVReader.read(utf16) }
    }

    /// Every chunk boundary must give the same result as reading the file whole.
    @Test(arguments: ["ours/out-of-order.xml", "ours/entities.xml", "ours/cdata-comments.xml", "ours/latin1.xml",
                      "ours/doctype-entities.xml", "peer-xmltv-tests/inputs/test.xml"])
    func readsTheSameWhateverTheChunkSize(file: String) throws {
        let bytes = try Fixture.bytes(file)
        let whole = try XMLTVReader.read(bytes)
        // Given the contents handed on too, as an import's reader is (its repeats made whole to compare).
        for (size, remembers) in [1, 2, 3, 7, 64].flatMap({ size in [(size, false), (size, true)] }) {
            var reader = XMLTVReader()
            let contents = RememberedProgrammes()
            if remembers { reader.contents = contents }
            var programmes: [Programme] = []
            var channels: [Channel] = []
            let collect: (XMLTVItem) -> Void = {
                if case .channel(let channel) = $0 { channels.append(channel) }
                if let programme = contents.programme($0) { programmes.append(programme) }
            }
            var offset = 0
            while offset < bytes.count {
                try reader.feed(Array(bytes[offset..<min(bytes.count, offset + size)]), collect)
                offset += size
            }
            try reader.finish(collect)
            #expect(programmes == whole.programmes, "chunk size \(size), remembering \(remembers)")
            #expect(channels == whole.channels, "chunk size \(size), remembering \(remembers)")
        }
    }

    @Test func refusesAnOversizedToken() throws {
        var reader = XMLTVReader()
        reader.maximumTokenBytes = 1024
        let head = Array("<tv><programme start=\"2024\" channel=\"c\"><title>".utf8)
        let error = try #require(throws: XMLTVError.self) {
            try reader.feed(head + [UInt8](repeating: 0x41, count: 4096)) { _ in }
        }
        #expect(error.code == .tooLarge)
    }
}
