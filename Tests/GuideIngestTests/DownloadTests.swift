import Foundation
import GuideCore
import GuideIngest
import Testing

/// A real HTTP server on loopback (Python's http.server) serving the fixtures.
final class FixtureServer {
    let process = Process()
    let port: Int

    init() throws {
        port = Int.random(in: 20_000...60_000)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1",
                             "--directory", IngestFixture.fixtures.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Waits until the server answers, at most five seconds.
    func ready() async throws {
        for _ in 0..<50 {
            if (try? await ListingDownloader().download(url("PROVENANCE.md"))).map({ try? FileManager.default.removeItem(atPath: $0) }) != nil {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw IngestError(.download, "the fixture server did not start")
    }

    deinit { process.terminate() }
}

@Suite struct DownloadTests {
    @Test func importsAGzipURLWithProgress() async throws {
        let server = try FixtureServer()
        try await server.ready()
        let fixture = try IngestFixture()
        let updates = UpdateLog()
        let path = try await ListingDownloader().download(server.url("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml.gz")) {
            updates.append($0)
        }
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        let summary = try fixture.importer.importFile(at: path, as: SourceName("http://example/epg.xml.gz"))
        #expect(summary.programmes > 0)
        #expect(updates.last?.bytesRead == 23_839)
        #expect(updates.last?.totalBytes == 23_839)
    }

    @Test func aMissingURLSaysWhatTheServerAnswered() async throws {
        let server = try FixtureServer()
        try await server.ready()
        let error = try await #require(throws: IngestError.self) {
            try await ListingDownloader().download(server.url("no-such-guide.xml"))
        }
        #expect(error.message.contains("404"))
    }
}

/// Progress updates collected from the download's callback.
final class UpdateLog: @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [ImportProgress] = []

    func append(_ update: ImportProgress) {
        lock.lock()
        updates.append(update)
        lock.unlock()
    }

    var last: ImportProgress? {
        lock.lock()
        defer { lock.unlock() }
        return updates.last
    }
}
