import GRDB

extension SchemaMigrations {
    /// A programme's row without the copy of its title it kept beside its details.
    static func registerRowsWithoutTitles(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v40: a programme's title kept once, in its details") { db in
            // Every version of the details begins with the titles (``DetailsCodec/title(of:)``); only an import's
            // repairs (rows it had just written, read back) and a reminder following its programme read the column.
            // It was 21 of a row's 175 bytes at 1.75 M programmes, and every byte of a row is written twice (WAL, then
            // checkpoint): the database 423 -> 381 MB (issue 46). SQLite rewrites each row without it, once (3.9 s at
            // 1.75 M).
            try db.execute(sql: "ALTER TABLE programme DROP COLUMN title")
        }
    }
}
