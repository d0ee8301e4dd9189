import Foundation
import GuideCore
import GuideStore
import GuideStorePostgres
import GuideStoreSQLite
import StoreTestSupport
import Testing

/// One schema (issue 42, point 8): each store built from nothing by its own migrations has the same tables, columns
/// (types mapped to one family each), primary keys, foreign keys, unique constraints and indexes. Where the two must
/// differ (search: SQLite's FTS5 tables against PostgreSQL's trigram indexes), the difference is listed with why.
@Suite(.enabled(if: TestDatabase.postgres != nil, "needs PostgreSQL (TVGUIDE_TEST_POSTGRES; scripts/test's second run)"))
struct OneSchemaTests {
    /// A table as both stores describe it.
    struct Table: Equatable, CustomStringConvertible {
        var columns: [String: String]
        var primaryKey: [String]
        var foreignKeys: Set<String>
        /// Unique constraints and unique indexes alike, by their columns.
        var unique: Set<String>
        /// Other indexes, by their columns.
        var indexes: Set<String>

        var description: String {
            "columns \(columns.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }), key \(primaryKey), "
                + "foreign \(foreignKeys.sorted()), unique \(unique.sorted()), indexes \(indexes.sorted())"
        }
    }

    /// A declared type's family: SQLite's affinity rules, and PostgreSQL's types grouped alike.
    static func family(_ declared: String) -> String {
        let type = declared.lowercased()
        if type.contains("int") || type == "boolean" || type == "bool" { return "integer" }
        if type.contains("char") || type.contains("text") || type.contains("clob") { return "text" }
        if type.contains("blob") || type == "bytea" || type.isEmpty { return "blob" }
        if type.contains("real") || type.contains("floa") || type.contains("doub") { return "real" }
        return type
    }

    static func sqliteTables(_ store: SQLiteListingStore) async throws -> [String: Table] {
        try await store.reading { sql in
            var tables: [String: Table] = [:]
            let names = try await sql.column("""
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name
                """, as: String.self)
            let virtual = Set(try await sql.column("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'", as: String.self))
            for name in names where !virtual.contains(where: { name.hasPrefix($0 + "_") }) {
                var table = Table(columns: [:], primaryKey: [], foreignKeys: [], unique: [], indexes: [])
                var keyed: [(Int, String)] = []
                for row in try await sql.rows("SELECT name, type, pk FROM pragma_table_info(\(name))") {
                    let column: String = try row.value(0)
                    table.columns[column] = family(try row.value(1))
                    let position: Int = try row.value(2)
                    if position > 0 { keyed.append((position, column)) }
                }
                table.primaryKey = keyed.sorted { $0.0 < $1.0 }.map(\.1)
                for row in try await sql.rows("SELECT \"from\", \"table\" FROM pragma_foreign_key_list(\(name))") {
                    table.foreignKeys.insert("\(try row.value(0, as: String.self)) -> \(try row.value(1, as: String.self))")
                }
                for row in try await sql.rows("SELECT name, \"unique\", origin FROM pragma_index_list(\(name))") {
                    let index: String = try row.value(0), isUnique: Int = try row.value(1), origin: String = try row.value(2)
                    guard origin != "pk" else { continue }
                    // A case-folding collation is written as PostgreSQL's lower() of the column.
                    let columns = try await sql.rows("SELECT name, coll FROM pragma_index_xinfo(\(index)) WHERE key = 1 ORDER BY seqno")
                        .map { row -> String in
                            let column: String = try row.value(0), collation: String = try row.value(1)
                            return collation.uppercased() == "NOCASE" ? "lower(\(column))" : column
                        }
                    if isUnique == 1 { table.unique.insert(columns.joined(separator: ", ")) } else { table.indexes.insert(columns.joined(separator: ", ")) }
                }
                tables[name] = table
            }
            return tables
        }
    }

    static func postgresTables(_ store: PostgresListingStore) async throws -> [String: Table] {
        try await store.reading { sql in
            var tables: [String: Table] = [:]
            for row in try await sql.rows("""
                SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns
                WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """) {
                let name: String = try row.value(0)
                tables[name, default: Table(columns: [:], primaryKey: [], foreignKeys: [], unique: [], indexes: [])]
                    .columns[try row.value(1, as: String.self)] = family(try row.value(2))
            }
            // Keys and constraints, each with its columns in order.
            for row in try await sql.rows("""
                SELECT c.relname::text, k.contype::text, array_to_string(ARRAY(
                         SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(n, o)
                         JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o), ', '),
                       COALESCE(f.relname::text, '')
                FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
                LEFT JOIN pg_class f ON f.oid = k.confrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND k.contype IN ('p', 'f', 'u')
                """) {
                let name: String = try row.value(0), kind: String = try row.value(1), columns: String = try row.value(2)
                switch kind {
                case "p": tables[name]?.primaryKey = columns.components(separatedBy: ", ")
                case "f": tables[name]?.foreignKeys.insert("\(columns) -> \(try row.value(3, as: String.self))")
                default: tables[name]?.unique.insert(columns)
                }
            }
            // Indexes that back no constraint.
            for row in try await sql.rows("""
                SELECT c.relname::text, i.indisunique, array_to_string(ARRAY(
                         SELECT pg_get_indexdef(i.indexrelid, u.o::int, true) FROM generate_series(1, i.indnkeyatts) AS u(o)
                         ORDER BY u.o), ', ')
                FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class x ON x.oid = i.indexrelid
                WHERE c.relnamespace = current_schema()::regnamespace
                AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
                """) {
                // pg_get_indexdef quotes a column named by a keyword ("position").
                let name: String = try row.value(0), isUnique: Bool = try row.value(1)
                let columns = try row.value(2, as: String.self).replacingOccurrences(of: "\"", with: "")
                if isUnique { tables[name]?.unique.insert(columns) } else { tables[name]?.indexes.insert(columns) }
            }
            return tables
        }
    }

    /// Where the stores differ on purpose, and why.
    static let differences: [(table: String, only: String, what: String, why: String)] = [
        // None since v41, when PostgreSQL's trigram indexes became tables of postings as SQLite's.
    ]

    /// `tables` without the differences listed for `store`.
    static func comparable(_ tables: [String: Table], of store: String) -> [String: Table] {
        var tables = tables
        // Each store's record of its migrations (SQLite's grdb_migrations is left out with its other bookkeeping).
        tables["schema_migration"] = nil
        for difference in differences where difference.only == store {
            // A difference listed is one the store has: one gone stays out of the list.
            let found = if difference.what.hasPrefix("column ") {
                tables[difference.table]?.columns
                    .removeValue(forKey: String(difference.what.dropFirst("column ".count)))
            } else {
                tables[difference.table]?.indexes.remove(String(difference.what.dropFirst("index ".count)))
            }
            #expect(found != nil, "\(store) has no \(difference.what) on \(difference.table)")
        }
        return tables
    }

    @Test func bothStoresBuildTheSameSchemaFromNothing() async throws {
        // Given each store migrated from nothing.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-schema-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let location = TestDatabase.location(in: folder)  // A schema of its own in the test's PostgreSQL database.
        let sqlite = try SQLiteListingStore(path: folder + "/guide.sqlite", now: { Date() })  // Migrated as it opens.
        let opened = try await TestDatabase.open(location)
        let postgres = try #require(opened as? PostgresListingStore)

        // When each describes its tables.
        let lite = Self.comparable(try await Self.sqliteTables(sqlite), of: "SQLite")
        let pg = Self.comparable(try await Self.postgresTables(postgres), of: "PostgreSQL")

        // Then both have the same tables, and each table the same columns, keys, constraints and indexes.
        #expect(lite.keys.sorted() == pg.keys.sorted(), "tables only in SQLite: \(Set(lite.keys).subtracting(pg.keys).sorted()); only in PostgreSQL: \(Set(pg.keys).subtracting(lite.keys).sorted())")
        for name in Set(lite.keys).intersection(pg.keys).sorted() {
            #expect(lite[name] == pg[name], "\(name)\n  SQLite:     \(lite[name]!)\n  PostgreSQL: \(pg[name]!)")
        }
    }
}
