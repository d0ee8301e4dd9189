import Foundation
import GuideCore
import GuideIngest
import GuideStore
import Testing
import XMLTV

/// Hostile files through the importer into the store this run tests: a refused file changes nothing stored, and a
/// repaired one stores what any store can hold (PostgreSQL's text cannot hold NUL; SQLite's can, but neither gets it).
@Suite struct HostileImportTests {
    static func write(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).xml")
        try Data(bytes).write(to: url)
        return url
    }

    static let good = """
        <tv><programme start="20240101180000 +0000" stop="20240101190000 +0000" channel="c"><title>Kept</title></programme></tv>
        """

    @Test(arguments: ["attribute", "nesting", "laughs"])
    func aRefusedFileChangesNothing(kind: String) async throws {
        let fixture = try await IngestFixture()
        let good = try Self.write(Array(Self.good.utf8))
        defer { try? FileManager.default.removeItem(at: good) }  // Test scratch file.
        try await fixture.importer.importFile(at: good.path, as: SourceName("feed"))
        let before = try await fixture.all()

        var text = "<tv><programme start=\"20240101180000 +0000\" stop=\"20240101190000 +0000\" channel=\"c\"><title>Bad</title>"
        switch kind {
        case "attribute":
            text = "<tv><programme start=\"20240101180000 +0000\" channel=\"" + String(repeating: "A", count: 10 << 20) + "\">"
        case "nesting":
            text += String(repeating: "<desc>", count: 10_000)
        default:
            // Entities never expand, but the file is cut off in the middle: refused as truncated.
            text = "<!DOCTYPE tv [<!ENTITY lol \"lol\"><!ENTITY lol1 \"&lol;&lol;&lol;\">]>" + text + "<desc>&lol1;"
        }
        let hostile = try Self.write(Array(text.utf8))
        defer { try? FileManager.default.removeItem(at: hostile) }  // Test scratch file.
        await #expect(throws: (any Error).self) { try await fixture.importer.importFile(at: hostile.path, as: SourceName("feed")) }
        #expect(try await fixture.all() == before)
    }

    @Test func nulAndInvalidBytesAreStoredRepaired() async throws {
        let fixture = try await IngestFixture()
        let bytes = Array("<tv><programme start=\"20240101180000 +0000\" stop=\"20240101190000 +0000\" channel=\"c\"><title>A".utf8)
            + [0x00, 0xFF] + Array("B</title><desc>x&#0;y</desc></programme></tv>".utf8)
        let file = try Self.write(bytes)
        defer { try? FileManager.default.removeItem(at: file) }  // Test scratch file.
        let summary = try await fixture.importer.importFile(at: file.path, as: SourceName("feed"))
        #expect(summary.programmes == 1)
        #expect((summary.issues.counts[.invalidEncoding] ?? 0) >= 1)
        let stored = try #require(try await fixture.all().first)
        #expect(stored.programme.title == "A\u{FFFD}\u{FFFD}B")
        #expect(!(stored.programme.description ?? "").contains("\u{0}"))
        #expect(try await fixture.store.search(SearchQuery(["a\u{FFFD}"])).count == 1)
    }

    /// The listings value that stopped `tvguide import` (and `serve`, at every refresh of such a source).
    @Test func absurdNumbersAreRepairsNotCrashes() async throws {
        let fixture = try await IngestFixture()
        let text = """
            <tv><programme start="20240101180000 +0000" channel="c"><title>A</title><length units="hours">9223372036854775807</length>
            <episode-num system="xmltv_ns">9223372036854775807.0.</episode-num></programme>
            <programme start="20240101190000 +0000" stop="20240101200000 +0000" channel="c"><title>B</title></programme></tv>
            """
        let file = try Self.write(Array(text.utf8))
        defer { try? FileManager.default.removeItem(at: file) }  // Test scratch file.
        let summary = try await fixture.importer.importFile(at: file.path, as: SourceName("feed"))
        #expect(summary.programmes == 2)
        #expect(summary.issues.counts[.invalidValue] == 1)
        let stored = try await fixture.all()
        #expect(stored.map(\.programme.title) == ["A", "B"])
        #expect(stored.first?.programme.length == nil)
        #expect(stored.first?.end == stored.last?.programme.start, "the stop comes from the next programme")
    }
}
