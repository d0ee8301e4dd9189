import Foundation
import GRDB
import GuideStore
import GuideThreads

/// Backups of the embedded store (`tvguide backup`, `tvguide restore`), with SQLite's online backup: the copy is
/// made inside one read transaction, so it is the database as one moment saw it, whatever `serve` writes meanwhile
/// (an import is one transaction: a backup has all of it or none). Synchronous: callers run it on a thread of their
/// own (``BlockingWork``).
public enum SQLiteBackup {
    /// What a backup or restore holds.
    public struct Summary: Sendable {
        public var channels: Int
        public var programmes: Int
        public var bytes: Int64
    }

    /// Copies the database at `path` to `destination`, a file that must not exist yet (nor a link by that name): it
    /// is made readable and writable by its owner only (0600, whatever the umask), since it holds delivery secrets,
    /// media servers' tokens, the push key and password hashes.
    public static func backup(_ path: String, to destination: String) throws -> Summary {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError(.notFound, "there is no database at \(path)") }
        // O_EXCL: made here, now, or refused; a link (even one leading nowhere) or a file by that name is refused.
        let made = open(destination, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard made >= 0 else {
            throw errno == EEXIST ? StoreError(.conflict, "\(destination) exists already (a file or a link): back up to a new file")
                                  : StoreError(.failed, "cannot make \(destination): \(String(cString: strerror(errno)))")
        }
        fchmod(made, 0o600)  // The umask may have taken bits away, never added them: this says it outright.
        close(made)
        do {
            let source = try DatabasePool(path: path, configuration: readOnly)
            let copy = try DatabaseQueue(path: destination)
            try source.backup(to: copy)
            try copy.close()
            try source.close()
        } catch let error as DatabaseError {
            try? FileManager.default.removeItem(atPath: destination)  // A half-made copy is no backup.
            throw StoreError(.failed, "the backup failed: \(error.message ?? error.description)")
        }
        return try summary(of: destination)
    }

    /// Replaces the database at `path` with the backup `file`, after checking it: an SQLite file that passes SQLite's
    /// integrity check, with tvguide's schema from this version or an older one (brought up to date after). The
    /// database it replaces is kept beside it as `path.before-restore` (an older one there is replaced). A running
    /// `serve` sees the restored listings as a new version.
    public static func restore(_ file: String, into path: String) throws -> Summary {
        try checkOwnership(file)
        try check(file)
        var generation: Int64 = 0
        if FileManager.default.fileExists(atPath: path) {
            let kept = path + ".before-restore"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: kept + suffix) }  // The older safety copy.
            _ = try backup(path, to: kept)
            generation = (try? DatabaseQueue(path: kept, configuration: readOnly).read { db in
                try Int64.fetchOne(db, sql: "SELECT generation FROM guide_state")
            }) ?? 0
        }
        do {
            let source = try DatabaseQueue(path: file, configuration: readOnly)
            var extended = Configuration()
            extended.prepareDatabase(SQLiteListingStore.registerExtensions)  // The migrations may rebuild the indexes.
            let destination = try DatabasePool(path: path, configuration: extended)
            try source.backup(to: destination)
            try SchemaMigrations.migrator.migrate(destination)
            // Past both versions, so every cache of a running server sees the restored listings as new.
            try destination.write { db in
                try db.execute(sql: "UPDATE guide_state SET generation = MAX(generation, ?) + 1", arguments: [generation])
            }
            try destination.close()
            try source.close()
        } catch let error as DatabaseError {
            throw StoreError(.failed, "the restore failed: \(error.message ?? error.description); the previous database is in \(path).before-restore")
        }
        return try summary(of: path)
    }

    /// Refuses a backup that is a link, or that users other than its owner may write: whoever could change it could
    /// change every profile's secrets and the server's keys through the restore.
    static func checkOwnership(_ file: String) throws {
        var status = stat()
        guard lstat(file, &status) == 0 else { throw StoreError(.notFound, "there is no file \(file)") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw StoreError(.invalid, "\(file) is not a plain file (a link?): restore from the file itself") }
        guard status.st_mode & 0o022 == 0 else {
            throw StoreError(.invalid, "\(file) may be written by others (mode \(String(status.st_mode & 0o777, radix: 8))): chmod go-w \(file) first")
        }
    }

    /// Refuses a file that is not a tvguide database this version can open.
    static func check(_ file: String) throws {
        guard FileManager.default.fileExists(atPath: file) else { throw StoreError(.notFound, "there is no file \(file)") }
        do {
            let queue = try DatabaseQueue(path: file, configuration: readOnly)
            defer { try? queue.close() }
            try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard integrity == ["ok"] else {
                    throw StoreError(.invalid, "\(file) fails SQLite's check: \(integrity.prefix(3).joined(separator: "; "))")
                }
                guard try db.tableExists("guide_state"), try db.tableExists("grdb_migrations") else {
                    throw StoreError(.invalid, "\(file) is an SQLite file but not a tvguide database")
                }
                let known = Set(SchemaMigrations.migrator.migrations)
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                if let newer = applied.first(where: { !known.contains($0) }) {
                    throw StoreError(.invalid, "\(file) comes from a newer tvguide (its schema has \"\(newer)\"): restore it with that version")
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(.invalid, "\(file) is not an SQLite database: \(error.message ?? error.description)")
        }
    }

    private static func summary(of path: String) throws -> Summary {
        let queue = try DatabaseQueue(path: path, configuration: readOnly)
        defer { try? queue.close() }
        let (channels, programmes) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM channel") ?? 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM programme") ?? 0)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return Summary(channels: channels, programmes: programmes, bytes: bytes)
    }

    private static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(SQLiteListingStore.busyWait)
        return configuration
    }
}
