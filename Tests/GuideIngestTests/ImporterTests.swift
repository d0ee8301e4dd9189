import Foundation
import GuideCore
import GuideIngest
import GuideStore
import Testing
import XMLTV

@Suite struct ImporterTests {
    /// gzip is found by its magic bytes, not by the name.
    @Test func detectsGzipByContent() throws {
        let fixture = try IngestFixture()
        let source = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml.gz")
        let renamed = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID().uuidString).xml")
        try FileManager.default.copyItem(at: source, to: renamed)
        defer { try? FileManager.default.removeItem(at: renamed) }  // Test scratch file.
        let summary = try fixture.importer.importFile(at: renamed.path)
        let plain = try IndependentReading.read(source)
        #expect(summary.programmes == plain.airings.count)
        #expect(summary.programmes > 0)
    }

    @Test func aTruncatedGzipChangesNothing() throws {
        let fixture = try IngestFixture()
        let source = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml.gz")
        let before = try fixture.importer.importFile(at: source.path, as: SourceName("feed"))
        let bytes = try Data(contentsOf: source)
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).gz")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        defer { try? FileManager.default.removeItem(at: cut) }  // Test scratch file.
        #expect(throws: (any Error).self) { try fixture.importer.importFile(at: cut.path, as: SourceName("feed")) }
        #expect(try fixture.store.counts().programmes == before.programmes)
    }

    @Test func importsTheRadioTimesFeedWithItsChannelFromTheFileName() throws {
        let fixture = try IngestFixture()
        let summary = try fixture.importer.importFile(at: IngestFixture.fixtures.appendingPathComponent("radiotimes/26.dat").path)
        #expect(summary.programmes == 383)
        #expect(summary.issues.counts[.zeroLength] == 36)
        #expect(try fixture.store.channels().map(\.id.rawValue) == ["26"])
        let now = try fixture.store.nowNext(at: XMLTVTimestamp.date("20110307070000")!, channels: nil)
        #expect(now.first?.now?.programme.title == "Daybreak")
        #expect(now.first?.next?.programme.title == "Lorraine")
    }

    @Test func aMissingFileSaysSo() throws {
        let fixture = try IngestFixture()
        let error = try #require(throws: IngestError.self) { try fixture.importer.importFile(at: "/nonexistent/guide.xml") }
        #expect(error.code == .notFound)
    }

    @Test func progressCountsBytesAndProgrammes() throws {
        let fixture = try IngestFixture()
        var importer = fixture.importer
        importer.chunkSize = 4096
        var updates: [ImportProgress] = []
        let path = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.tmacaraibes.com.content.xml").path
        let summary = try importer.importFile(at: path) { updates.append($0) }
        #expect(updates.count > 10)
        #expect(updates.last?.bytesRead == updates.last?.totalBytes)
        #expect(updates.last?.fraction == 1)
        #expect(updates.last?.programmes == summary.programmes + summary.issues.counts[.duplicate, default: 0])
    }
}
