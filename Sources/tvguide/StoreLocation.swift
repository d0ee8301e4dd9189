import Foundation
import GuideStore

/// Where a guide database is, and where this instance keeps its own files beside it.
struct StoreLocation: Sendable {
    /// The file path or postgres:// address.
    let path: String

    init(_ layers: SettingsLayers) {
        path = layers.string(.database) ?? StoreOptions.dataHome + "/tvguide/guide.sqlite"
    }

    /// Where this instance keeps its own files (XMLTV exports, cached images): beside an SQLite file; for PostgreSQL,
    /// a folder per database in the data folder (each instance keeps its own).
    var localFiles: String {
        guard case .postgres(let location)? = try? DatabaseLocation(path) else { return path }
        let name = [location.host, String(location.port), location.database, location.schema].compactMap { $0 }.joined(separator: "-")
        return StoreOptions.dataHome + "/tvguide/postgres-" + name
    }

    /// The database for messages: a path, or the address without its password.
    var described: String {
        (try? DatabaseLocation(path))?.description ?? path
    }
}
