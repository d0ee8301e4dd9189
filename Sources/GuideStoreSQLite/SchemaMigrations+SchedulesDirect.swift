import Foundation
import GRDB

/// The schema's migrations for listings for everyone (issue 28): what Schedules Direct sources keep between refreshes.
extension SchemaMigrations {
    static func registerSchedulesDirect(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v17: what Schedules Direct sources keep between refreshes") { db in
            try db.execute(sql: """
                CREATE TABLE sd_document (
                    key TEXT PRIMARY KEY,
                    version TEXT NOT NULL,
                    body BLOB NOT NULL,
                    used_at INTEGER NOT NULL
                );
                CREATE INDEX sd_document_used ON sd_document (used_at);
                """)
        }
    }
}
