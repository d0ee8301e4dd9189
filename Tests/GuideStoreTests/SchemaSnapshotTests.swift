import Foundation
import GRDB
import StoreTestSupport
import Testing
@testable import GuideStoreSQLite

/// A new database is made from ``SchemaMigrations/Snapshot``, which this suite writes from what GRDB's migrator makes
/// of the steps: `TVGUIDE_WRITE_SCHEMA_SNAPSHOT=1 swift test --filter SchemaSnapshotTests` after a step is added.
@Suite struct SchemaSnapshotTests {
    static let rewrite = "after a schema step is added or changed, write the snapshot again: "
        + "TVGUIDE_WRITE_SCHEMA_SNAPSHOT=1 swift test --filter SchemaSnapshotTests"

    /// The snapshot was made from the present steps (or it is not used, and a new database takes the steps one by
    /// one); with the variable set, it is written anew from them.
    @Test func theSnapshotIsOfThePresentSteps() throws {
        let identifiers = SchemaMigrations.migrator.migrations
        if ProcessInfo.processInfo.environment["TVGUIDE_WRITE_SCHEMA_SNAPSHOT"] != nil {
            let stepped = try Self.stepped()
            let source = try stepped.read { try SchemaSnapshotSource.swift(of: $0, steps: identifiers) }
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/GuideStoreSQLite/SchemaMigrations+Snapshot.swift").standardized
            try source.write(to: path, atomically: true, encoding: .utf8)
            Issue.record("wrote \(path.path): build and run the tests again")
            return
        }
        #expect(SchemaMigrations.Snapshot.steps == identifiers, Comment(rawValue: Self.rewrite))
    }

    /// What a new store holds, schema and rows (the steps recorded, the guide's state), is what GRDB's migrator makes
    /// a step at a time.
    @Test func aNewDatabaseHoldsWhatTheStepsMakeOneByOne() async throws {
        let folder = TestScratch.folder("tvguide-new-schema")
        let stepped = try Self.stepped()
        _ = try SQLiteListingStore(path: folder + "/new.sqlite", now: { Date() })
        let new = try DatabaseQueue(path: folder + "/new.sqlite", configuration: Self.configuration)
        let steppedContents = try await stepped.read(Self.contents)
        #expect(steppedContents.count > 100)
        #expect(try await new.read(Self.contents) == steppedContents, Comment(rawValue: Self.rewrite))
        #expect(try await new.read { try SchemaMigrations.migrator.hasCompletedMigrations($0) })
    }

    /// Connections as the store's: the steps build trigram indexes.
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase(SQLiteListingStore.registerExtensions)
        return configuration
    }

    /// A database made by GRDB's migrator, a step at a time.
    static func stepped() throws -> DatabaseQueue {
        let stepped = try DatabaseQueue(path: TestScratch.folder("tvguide-stepped-schema") + "/stepped.sqlite",
                                        configuration: configuration)
        try SchemaMigrations.migrator.migrate(stepped)
        return stepped
    }

    /// Every schema entry (its type, name, table and SQL) and every row of every table, as text, in order.
    static func contents(_ db: Database) throws -> [String] {
        let entries = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY 1, 2")
        var contents = entries.map { "\($0)" }
        for entry in entries where entry["type"] == "table" {
            let table: String = entry["name"]
            contents += try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY 1").map { "\(table): \($0)" }
        }
        return contents
    }
}

/// The Swift source of ``SchemaMigrations/Snapshot`` for a database the steps made.
enum SchemaSnapshotSource {
    struct Unwritable: Error, CustomStringConvertible {
        let description: String
    }

    static func swift(of db: Database, steps: [String]) throws -> String {
        var lines = [
            "// Written by SchemaSnapshotTests from what GRDB's migrator (SchemaMigrations.migrator) makes, not by hand:",
            "// TVGUIDE_WRITE_SCHEMA_SNAPSHOT=1 swift test --filter SchemaSnapshotTests",
            "",
            "extension SchemaMigrations {",
            "    /// A new database as the steps leave it: made from this in one transaction, it holds what they",
            "    /// make one by one (SchemaSnapshotTests), and is used only while its steps are the present ones.",
            "    enum Snapshot {",
            "        /// The steps it was made by, in order.",
            "        static let steps: [String] = [",
        ]
        for step in steps { lines.append("            " + (try literal(step)) + ",") }
        let script = try statements(db).map { $0 + ";" }.joined(separator: "\n")
        lines += ["        ]", "",
                  "        /// Each schema entry's SQL (the tables first, then the rest, each in the order made) and",
                  "        /// each row the steps insert but their own records, one statement after another.",
                  "        static let script = " + (try multilineLiteral(script, indent: "            "))]
        lines += ["    }", "}", ""]
        return lines.joined(separator: "\n")
    }

    private static func statements(_ db: Database) throws -> [String] {
        let entries = try Row.fetchAll(db, sql: """
            SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY type <> 'table', rowid
            """)
        var statements = entries.map { $0["sql"] as String }
        for entry in entries where entry["type"] == "table" && entry["name"] != "grdb_migrations" {
            let table: String = entry["name"]
            let values = try db.columns(in: table).map { "quote(\"\($0.name)\")" }.joined(separator: " || ',' || ")
            statements += try String.fetchAll(db, sql: """
                SELECT 'INSERT INTO "\(table)" VALUES(' || \(values) || ')' FROM "\(table)" ORDER BY 1
                """)
        }
        return statements
    }

    private static func literal(_ text: String) throws -> String {
        guard !text.contains("\"#"), !text.contains("\n") else { throw Unwritable(description: "cannot write \(text)") }
        return "#\"" + text + "\"#"
    }

    /// `text` as a multi-line raw string literal whose lines are at most 120 characters: a longer line is broken
    /// before a space, with a continuation (`\#` at the end of the line), so the string is `text` exactly.
    private static func multilineLiteral(_ text: String, indent: String) throws -> String {
        guard !text.contains("\"\"\"#"), !text.contains("\\#") else {
            throw Unwritable(description: "cannot write \(text)")
        }
        var lines = ["#\"\"\""]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.last != " ", line.last != "\t" else {
                throw Unwritable(description: "a line ends in white space: \(line)")
            }
            var rest = line
            while indent.count + rest.count > 120,
                  let space = rest.prefix(120 - indent.count - 2).dropFirst().lastIndex(of: " ") {
                lines.append(indent + rest[..<space] + "\\#")
                rest = rest[space...]
            }
            lines.append(rest.isEmpty ? "" : indent + rest)
        }
        lines.append(indent + "\"\"\"#")
        return lines.joined(separator: "\n")
    }
}
