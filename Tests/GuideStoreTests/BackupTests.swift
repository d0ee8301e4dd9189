import Foundation
import GRDB
import GuideCore
import Synchronization
import Testing
@testable import GuideStoreSQLite
@testable import GuideStore

/// `tvguide backup` and `restore` on the embedded store: a backup taken while an import runs holds all of it or none
/// of it; a restore checks its file and keeps the database it replaces.
@Suite struct BackupTests {
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-backup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `count` half-hour programmes on `channels` channels from 2026-02-15 00:00 UTC.
    static func listings(_ count: Int, channels: Int, title: String) -> @Sendable (ListingSink) -> Void {
        { sink in
            for index in 0..<count {
                let start = Date(timeIntervalSince1970: 1_771_113_600 + Double(index / channels) * 1800)
                sink.add(Programme(channel: ChannelID("\(title.lowercased())\(index % channels).tv"), start: start, stop: start + 1800,
                                   titles: [LocalizedText("\(title) \(index)")]), line: nil)
            }
        }
    }

    @Test func aBackupDuringAnImportHasAllOfItOrNone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let path = folder + "/guide.sqlite"
        let store = try SQLiteListingStore(path: path, now: { Date() })
        _ = try await store.importListings(from: SourceName("first"), Self.listings(5_000, channels: 10, title: "Early"))
        let before = try await store.counts().programmes
        let done = Mutex(false)
        let importing = Task {
            defer { done.withLock { $0 = true } }
            return try await store.importListings(from: SourceName("second"), Self.listings(60_000, channels: 40, title: "Late"))
        }
        var counts: [Int] = []
        let backUp = { (index: Int) in try await Task.detached { try SQLiteBackup.backup(path, to: folder + "/backup-\(index).sqlite").programmes }.value }
        while !done.withLock({ $0 }), counts.count < 1_000 { counts.append(try await backUp(counts.count)) }
        _ = try await importing.value
        counts.append(try await backUp(counts.count))
        let after = try await store.counts().programmes
        #expect(after == before + 60_000)
        // Every copy is the database before the import or after it: never part of it.
        #expect(counts.allSatisfy { $0 == before || $0 == after }, "\(counts) with \(before) before and \(after) after")
        #expect(counts.count > 2 && counts.last == after)
        // A copy opens as a guide.
        let reopened = try SQLiteListingStore(path: folder + "/backup-\(counts.count - 1).sqlite", now: { Date() })
        #expect(try await reopened.counts().programmes == counts[counts.count - 1])
        // A backup never overwrites a file.
        #expect(throws: StoreError.self) { try SQLiteBackup.backup(path, to: folder + "/backup-0.sqlite") }
    }

    /// A backup holds secrets: it is made 0600 whatever the umask, never over a file or through a link; a restore
    /// refuses a file others may write, or a link (issue 27, point 7).
    @Test func backupsAreTheOwnersAloneAndNeverFollowALink() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let path = folder + "/guide.sqlite"
        let store = try SQLiteListingStore(path: path, now: { Date() })
        _ = try await store.importListings(from: SourceName("first"), Self.listings(100, channels: 2, title: "Early"))
        // Given a permissive umask, as under sudo,
        let before = umask(0o022)
        defer { umask(before) }
        _ = try SQLiteBackup.backup(path, to: folder + "/backup.sqlite")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/backup.sqlite")[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
        // A link at the target, leading somewhere or nowhere, is refused and what it leads to is untouched.
        try "precious".write(toFile: folder + "/precious", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/precious")
        try FileManager.default.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: folder + "/made-by-the-link")
        #expect(throws: StoreError.self) { try SQLiteBackup.backup(path, to: folder + "/link") }
        #expect(throws: StoreError.self) { try SQLiteBackup.backup(path, to: folder + "/dangling") }
        #expect(try String(contentsOfFile: folder + "/precious", encoding: .utf8) == "precious")
        #expect(!FileManager.default.fileExists(atPath: folder + "/made-by-the-link"))
        // A restore refuses a backup others may write, and a link to one; its owner's own file is restored.
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: folder + "/backup.sqlite")
        #expect(throws: StoreError.self) { try SQLiteBackup.restore(folder + "/backup.sqlite", into: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o620], ofItemAtPath: folder + "/backup.sqlite")
        #expect(throws: StoreError.self) { try SQLiteBackup.restore(folder + "/backup.sqlite", into: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder + "/backup.sqlite")
        try FileManager.default.createSymbolicLink(atPath: folder + "/to-backup", withDestinationPath: folder + "/backup.sqlite")
        #expect(throws: StoreError.self) { try SQLiteBackup.restore(folder + "/to-backup", into: path) }
        #expect(try SQLiteBackup.restore(folder + "/backup.sqlite", into: path).programmes == 100)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: path + ".before-restore")[.posixPermissions] as? Int)
        #expect(kept == 0o600, "the replaced database, kept")
    }

    @Test func aRestoreChecksItsFileAndKeepsTheDatabaseItReplaces() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let path = folder + "/guide.sqlite", backup = folder + "/backup.sqlite"
        let store = try SQLiteListingStore(path: path, now: { Date() })
        _ = try await store.importListings(from: SourceName("first"), Self.listings(100, channels: 2, title: "Kept"))
        let generation = try await store.version().generation
        _ = try SQLiteBackup.backup(path, to: backup)
        _ = try await store.importListings(from: SourceName("later"), Self.listings(50, channels: 5, title: "Later"))
        #expect(try await store.counts().programmes == 150)

        // Refused, with the database untouched: not SQLite, not tvguide's, from a newer tvguide.
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: folder + "/text.sqlite"))
        let other = try DatabaseQueue(path: folder + "/other.sqlite")
        try await other.write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        let newer = folder + "/newer.sqlite"
        _ = try SQLiteBackup.backup(path, to: newer)
        let future = try DatabaseQueue(path: newer)
        try await future.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')") }
        try future.close()
        for (file, message) in [(folder + "/text.sqlite", "is not an SQLite database"), (folder + "/other.sqlite", "not a tvguide database"),
                                (newer, "comes from a newer tvguide"), (folder + "/missing.sqlite", "there is no file")] {
            #expect { try SQLiteBackup.restore(file, into: path) } throws: { ($0 as? StoreError)?.message.contains(message) == true }
        }
        #expect(try await store.counts().programmes == 150)

        // Restored: the backup's listings, seen by the open store as a new version; the replaced database kept.
        let restored = try SQLiteBackup.restore(backup, into: path)
        #expect(restored.programmes == 100)
        #expect(try await store.counts().programmes == 100)
        #expect(try await store.version().generation > generation)
        let kept = try SQLiteListingStore(path: path + ".before-restore", now: { Date() })
        #expect(try await kept.counts().programmes == 150)
    }

    /// A backup made before the trigram indexes had their own tokenizer (v38) is brought up to date as it is
    /// restored, and searched.
    @Test func aBackupFromBeforeTheWordTrigramsIsRestoredAndSearched() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let path = folder + "/guide.sqlite", backup = folder + "/backup.sqlite"
        let store = try SQLiteListingStore(path: path, now: { Date() })
        _ = try await store.importListings(from: SourceName("first"), Self.listings(100, channels: 2, title: "Kept"))
        _ = try SQLiteBackup.backup(path, to: backup)
        var configuration = Configuration()
        configuration.prepareDatabase(SQLiteListingStore.registerExtensions)
        let older = try DatabaseQueue(path: backup, configuration: configuration)
        try await older.write { db in
            try SchemaMigrations.putBackFTS5Indexes(db, tokenizer: "trigram", forgetting: ["v38:"])
        }
        try older.close()
        _ = try await store.importListings(from: SourceName("first"), Self.listings(10, channels: 1, title: "Later"))

        #expect(try SQLiteBackup.restore(backup, into: path).programmes == 100)
        #expect(try await store.search(SearchQuery(["kept"], limit: 1000)).count == 100)
        #expect(try await store.search(SearchQuery(["later"])).isEmpty)
    }
}
