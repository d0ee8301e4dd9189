import Foundation
import GuideCore
import GuideIngest
import GuideStore
import StoreTestSupport

/// A fresh store with an importer, and where the test data lives.
struct IngestFixture {
    /// Where the database is, for a second instance on it.
    let location: String
    let store: any GuideDatabase
    let importer: ListingImporter

    init() async throws {
        location = TestDatabase.location(in: TestScratch.folder("tvguide-ingest"))
        store = try await TestDatabase.open(location)
        importer = ListingImporter(store: store)
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("XMLTVTests/Fixtures")

    /// `../shared/data` beside the checkout: there for developers and CI, not in a user's clone.
    static let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/data/xmltv")

    static var hasShared: Bool { FileManager.default.fileExists(atPath: shared.appendingPathComponent("real").path) }

    static func realFiles() -> [String] {
        guard hasShared else { return [] }
        let folder = shared.appendingPathComponent("real")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            .map { folder.appendingPathComponent($0).path }
    }

    func all() async throws -> [StoredProgramme] {
        try await store.everyProgramme()
    }
}
