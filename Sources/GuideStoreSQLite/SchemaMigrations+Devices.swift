import Foundation
import GRDB

/// The schema's migrations for the rest of the living room (issue 30): the devices tvguide presents itself as.
extension SchemaMigrations {
    static func registerDevices(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v20: a feed's own tuner port, for Plex") { db in
            // Plex takes a tuner as ADDRESS:PORT only, so a feed it reads as an HDHomeRun has a port of its own
            // (NULL: none), served at its root (TunerPorts).
            try db.execute(sql: """
                ALTER TABLE lineup_feed ADD COLUMN tuner_port INTEGER;
                CREATE UNIQUE INDEX lineup_feed_tuner_port ON lineup_feed (tuner_port) WHERE tuner_port IS NOT NULL;
                """)
        }
    }
}
