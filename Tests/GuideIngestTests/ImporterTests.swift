import Foundation
import GuideCore
import GuideIngest
import GuideStore
import Synchronization
import Testing
import XMLTV

@Suite struct ImporterTests {
    /// gzip is found by its magic bytes, not by the name.
    @Test func detectsGzipByContent() async throws {
        let fixture = try await IngestFixture()
        let source = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml.gz")
        let renamed = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID().uuidString).xml")
        try FileManager.default.copyItem(at: source, to: renamed)
        defer { try? FileManager.default.removeItem(at: renamed) }  // Test scratch file.
        let summary = try await fixture.importer.importFile(at: renamed.path)
        let plain = try await IndependentReading.read(source)
        #expect(summary.programmes == plain.airings.count)
        #expect(summary.programmes > 0)
    }

    @Test func aTruncatedGzipChangesNothing() async throws {
        let fixture = try await IngestFixture()
        let source = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml.gz")
        let before = try await fixture.importer.importFile(at: source.path, as: SourceName("feed"))
        let bytes = try Data(contentsOf: source)
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).gz")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        defer { try? FileManager.default.removeItem(at: cut) }  // Test scratch file.
        await #expect(throws: (any Error).self) { try await fixture.importer.importFile(at: cut.path, as: SourceName("feed")) }
        #expect(try await fixture.store.counts().programmes == before.programmes)
    }

    @Test func importsTheRadioTimesFeedWithItsChannelFromTheFileName() async throws {
        let fixture = try await IngestFixture()
        let summary = try await fixture.importer.importFile(at: IngestFixture.fixtures.appendingPathComponent("radiotimes/26.dat").path)
        #expect(summary.programmes == 383)
        #expect(summary.issues.counts[.zeroLength] == 36)
        #expect(try await fixture.store.channels().map(\.id.rawValue) == ["26"])
        let now = try await fixture.store.nowNext(at: XMLTVTimestamp.date("20110307070000")!, channels: nil)
        #expect(now.first?.now?.programme.title == "Daybreak")
        #expect(now.first?.next?.programme.title == "Lorraine")
    }

    @Test func aMissingFileSaysSo() async throws {
        let fixture = try await IngestFixture()
        let error = try await #require(throws: IngestError.self) { try await fixture.importer.importFile(at: "/nonexistent/guide.xml") }
        #expect(error.code == .notFound)
        // A local source, or a playlist, that names a folder.
        let folder = FileManager.default.temporaryDirectory.path
        let read = try await #require(throws: IngestError.self) { try await fixture.importer.importFile(at: folder) }
        let playlist = try await #require(throws: IngestError.self) {
            try await PlaylistFile.store(folder, as: SourceName("iptv"), in: fixture.store)
        }
        #expect(read.code == .unreadable && playlist.code == .unreadable)
        #expect("\(read)".contains("is a folder, not a file") && "\(playlist)".contains("is a folder, not a file"))
    }

    @Test func progressCountsBytesAndProgrammes() async throws {
        let fixture = try await IngestFixture()
        var importer = fixture.importer
        importer.chunkSize = 4096
        let collected = Mutex<[ImportProgress]>([])
        let path = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.tmacaraibes.com.content.xml").path
        let summary = try await importer.importFile(at: path) { progress in collected.withLock { $0.append(progress) } }
        let updates = collected.withLock { $0 }
        #expect(updates.count > 10)
        #expect(updates.last?.bytesRead == updates.last?.totalBytes)
        #expect(updates.last?.fraction == 1)
        #expect(updates.last?.programmes == summary.programmes + summary.issues.counts[.duplicate, default: 0])
    }
}
