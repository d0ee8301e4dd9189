import Foundation
import GuideCore
import Testing
@testable import XMLTV

/// Files written to hurt a parser: each is read with its documented repair or refused with a clear error, in time and
/// memory bounded by the reader's limits (entities are never expanded, tags and nesting are capped).
@Suite struct HostileInputTests {
    static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    /// Reads `bytes` fed in chunks of `size`, as an import does.
    static func read(_ bytes: [UInt8], chunk size: Int) throws -> (programmes: [Programme], issues: IssueLog) {
        var reader = XMLTVReader()
        var programmes: [Programme] = []
        let collect: (XMLTVItem) -> Void = { if case .programme(let programme, _) = $0 { programmes.append(programme) } }
        var offset = 0
        while offset < bytes.count {
            try reader.feed(Array(bytes[offset..<min(bytes.count, offset + size)]), collect)
            offset += size
        }
        try reader.finish(collect)
        return (programmes, reader.issues)
    }

    @Test func billionLaughsAreNeverExpanded() throws {
        var doctype = "<!DOCTYPE tv [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "&lol;" : "&lol\(level - 1);"
            doctype += "<!ENTITY lol\(level) \"\(String(repeating: previous, count: 10))\">\n"
        }
        doctype += "]>\n"
        let text = Self.head + doctype + """
            <tv><programme start="20240101180000 +0000" stop="20240101190000 +0000" channel="c"><title>&lol9;</title></programme></tv>
            """
        let result = try XMLTVReader.read(Array(text.utf8))
        #expect(result.programmes.map(\.title) == ["&lol9;"])
        #expect(result.issues.counts[.doctypeIgnored] == 1)
    }

    @Test func externalEntitiesAreNeverFetched() throws {
        let text = Self.head + """
            <!DOCTYPE tv [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY remote SYSTEM "http://127.0.0.1:9/evil.dtd">]>
            <tv><programme start="20240101180000 +0000" channel="c"><title>&remote;</title><desc>&xxe;</desc></programme></tv>
            """
        let result = try XMLTVReader.read(Array(text.utf8))
        #expect(result.programmes.first?.title == "&remote;")
        #expect(result.programmes.first?.description == "&xxe;")
    }

    @Test(arguments: [64 << 10, 10 << 20 + 100])
    func aTenMegabyteAttributeIsRefused(chunk: Int) throws {
        let text = Self.head + "<tv><programme start=\"20240101180000 +0000\" channel=\"" + String(repeating: "A", count: 10 << 20)
            + "\"><title>x</title></programme></tv>"
        let error = try #require(throws: XMLTVError.self) { try Self.read(Array(text.utf8), chunk: chunk) }
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("start tag is over 1024 KB"))
        #expect(error.line == 2)
    }

    @Test func deeplyNestedElementsAreRefused() throws {
        let text = Self.head + "<tv><programme start=\"20240101180000 +0000\" channel=\"c\"><title>x</title>"
            + String(repeating: "<desc>", count: 100_000) + String(repeating: "</desc>", count: 100_000) + "</programme></tv>"
        let error = try #require(throws: XMLTVError.self) { try Self.read(Array(text.utf8), chunk: 64 << 10) }
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("nested more than 64 deep"))
    }

    @Test func invalidUTF8InAttributesIsRepairedAndReported() throws {
        let bytes = Array((Self.head + "<tv><programme start=\"20240101180000 +0000\" channel=\"bbc").utf8) + [0xFF, 0xFE]
            + Array("\"><title>x</title></programme></tv>".utf8)
        let result = try XMLTVReader.read(bytes)
        #expect(result.programmes.first?.channel == ChannelID("bbc\u{FFFD}\u{FFFD}"))
        #expect(result.issues.counts[.invalidEncoding] == 1)
    }

    @Test func nulBytesBecomeReplacementCharacters() throws {
        let bytes = Array((Self.head + "<tv><programme start=\"20240101180000 +0000\" channel=\"c\"><title>News").utf8) + [0x00]
            + Array(" at Ten</title><desc>Nul &#0; here</desc></programme></tv>".utf8)
        let result = try Self.read(bytes, chunk: 7)
        let programme = try #require(result.programmes.first)
        #expect(programme.title == "News\u{FFFD} at Ten")
        #expect(!(programme.description ?? "").contains("\u{0}"))
        #expect((result.issues.counts[.invalidEncoding] ?? 0) >= 1)
    }

    @Test func radioTimesLinesWithNulAndBadBytesAreRepaired() throws {
        var fields = [String](repeating: "", count: 23)
        fields[0] = "News"
        fields[19] = "10/03/2011"
        fields[20] = "20:00"
        fields[21] = "20:30"
        fields[22] = "30"
        let line = Array(fields.joined(separator: "~").utf8)
        var bytes = Array(line[..<2]) + [0x00, 0xC3] + Array(line[2...]) + [0x0A]
        var reader = RadioTimesReader(channel: Channel(id: ChannelID("26")))
        var programmes: [Programme] = []
        try reader.feed(bytes) { if case .programme(let programme, _) = $0 { programmes.append(programme) } }
        try reader.finish { if case .programme(let programme, _) = $0 { programmes.append(programme) } }
        #expect(programmes.first?.title == "Ne\u{FFFD}\u{FFFD}ws")
        #expect(reader.issues.counts[.invalidEncoding] == 1)

        bytes = [UInt8](repeating: 0x41, count: 2 << 20)
        var long = RadioTimesReader(channel: Channel(id: ChannelID("26")))
        let error = try #require(throws: XMLTVError.self) { try long.feed(bytes) { _ in } }
        #expect(error.code == .tooLarge)
    }
}
