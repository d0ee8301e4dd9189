import GRDB

/// The schema's migrations in order, each its identifier and what it does (``SchemaMigrations/steps``): GRDB's
/// migrator runs them one at a time on a database made by an earlier tvguide, and ``SchemaMigrations/migrate(_:)``
/// runs them all at once on a new one.
struct MigrationList {
    private(set) var steps: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = []

    mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        steps.append((identifier, migrate))
    }
}

extension SchemaMigrations {
    /// GRDB's migrator of every step: each in a transaction of its own, with the foreign keys checked after it.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in steps.steps { migrator.registerMigration(step.identifier, migrate: step.migrate) }
        return migrator
    }

    /// Brings the database to the latest schema. A new one, with nothing in it, gets every step in one transaction,
    /// recorded as GRDB's migrator records them, so that it finds nothing left to do: a step at a time, with 41 steps'
    /// transactions, commits and foreign-key checks, opening a new file took 87-98 ms against 71-73 ms so (and 28-30
    /// ms for one made before), on every first run, every import into a new file and every test that opens a store.
    static func migrate(_ writer: some DatabaseWriter) throws {
        try writer.barrierWriteWithoutTransaction { db in
            // A database with a schema is left to the migrator without taking the write lock, which an import in
            // another process may hold for a while.
            guard try isEmpty(db) else { return }
            // As GRDB's migrator runs a step: foreign keys off during the changes, checked before the commit.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.inTransaction(.immediate) {
                // Looked at again under the write lock: another process opening the new file may have made it.
                guard try isEmpty(db) else { return .commit }
                try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                for step in steps.steps {
                    try step.migrate(db)
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)",
                                   arguments: [step.identifier])
                }
                try db.checkForeignKeys()
                return .commit
            }
        }
        try migrator.migrate(writer)
    }

    private static func isEmpty(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0
    }
}
