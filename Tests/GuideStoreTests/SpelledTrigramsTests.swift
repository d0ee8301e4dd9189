import Foundation
import GRDB
import GuideCore
import Testing
@testable import GuideStoreSQLite
@testable import GuideStore

/// v39: the trigram indexes' tokens are the trigrams' codes spelled in five bytes (``WordTrigrams/spell(_:into:)``),
/// which spread over FTS5's hash table where the trigrams themselves crowded it. A database whose indexes v38 wrote,
/// with the trigrams as they are, has them rebuilt as it opens (and then replaced by v41's), and is searched as before.
@Suite struct SpelledTrigramsTests {
    /// Programmes titled "Kept n" with the description "Rain later in the west", on two channels.
    static let listings: @Sendable (ListingSink) -> Void = { sink in
        for index in 0..<20 {
            let start = Date(timeIntervalSince1970: 1_771_113_600 + Double(index / 2) * 1800)
            var programme = Programme(channel: ChannelID("kept\(index % 2).tv"), start: start, stop: start + 1800,
                                      titles: [LocalizedText("Kept \(index)")])
            programme.descriptions = [LocalizedText("Rain later in the west")]
            sink.add(programme, line: nil)
        }
    }

    @Test func indexesOfV38AreRebuiltAndSearched() async throws {
        let folder = try BackupTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let path = folder + "/guide.sqlite"
        let first = try SQLiteListingStore(path: path, now: { Date() })
        _ = try await first.importListings(from: SourceName("first"), Self.listings)
        // Given its indexes as v38 wrote them (the trigrams as they are) and v39 not yet run,
        var configuration = Configuration()
        configuration.prepareDatabase { try WordTrigrams.register($0, spelled: false) }
        let older = try DatabaseQueue(path: path, configuration: configuration)
        try await older.write { db in
            try SchemaMigrations.putBackFTS5Indexes(db, tokenizer: WordTrigrams.name, forgetting: ["v39:"])
        }
        try older.close()
        // when it is opened again, its titles and descriptions are found as before.
        let store = try SQLiteListingStore(path: path, now: { Date() })
        let past = Date(timeIntervalSince1970: 1_771_113_600)
        #expect(try await store.search(SearchQuery(["kept"], limit: 100, endingAfter: past)).count == 20)
        #expect(try await store.search(SearchQuery(["west"], scope: .all, limit: 100, endingAfter: past)).count == 20)
        #expect(try await store.search(SearchQuery(["east"], scope: .all, endingAfter: past)).isEmpty)
    }
}
