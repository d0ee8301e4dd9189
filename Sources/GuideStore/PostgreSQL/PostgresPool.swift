import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// Connections to one PostgreSQL database, lent to synchronous callers one at a time.
///
/// The store protocols are synchronous (as GRDB is), and their callers run on Swift's cooperative threads or NIO's
/// blocking pool, never on an event loop: a caller waits for PostgresNIO's futures on its own thread while the event
/// loops do the I/O. At most `limit` connections are open; a caller beyond that waits for one to come back.
final class PostgresPool: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let location: PostgresLocation
    private let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    private let permits: DispatchSemaphore
    private let nextID = Atomic<Int>(1)

    init(_ location: PostgresLocation, limit: Int) throws {
        var configuration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                             password: location.password, database: location.database,
                                                             tls: try Self.tls(location))
        if let schema = location.schema {
            configuration.options.additionalStartupParameters = [("search_path", "\(schema), public")]
        }
        configuration.options.connectTimeout = .seconds(10)
        self.configuration = configuration
        self.location = location
        var logger = Logger(label: "tvguide.postgres")
        logger.logLevel = .critical
        self.logger = logger
        permits = DispatchSemaphore(value: max(1, limit))
    }

    /// TLS as `sslmode` asks: none, encryption only, or encryption with the certificate and host name checked.
    private static func tls(_ location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        switch location.tls {
        case .disable:
            return .disable
        case .require:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .require(try NIOSSLContext(configuration: tls))
        case .verifyFull:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .fullVerification
            if let path = location.rootCertificate {
                do {
                    tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
                } catch {
                    throw StoreError(.invalid, "sslrootcert=\(path) is not a readable PEM certificate file: \(error)")
                }
            }
            return .require(try NIOSSLContext(configuration: tls))
        }
    }

    /// Runs `body` with a connection of its own; the connection goes back to the pool afterwards unless it broke.
    @discardableResult
    func withConnection<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        permits.wait()
        defer { permits.signal() }
        let connection = try take()
        defer {
            if connection.isClosed {
                // A broken connection is dropped; the next caller opens a new one.
            } else {
                idle.withLock { $0.append(connection) }
            }
        }
        return try body(PostgresLink(connection: connection, logger: logger))
    }

    /// Runs `body` inside one transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func transaction<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        try withConnection { link in try link.transaction { try body(link) } }
    }

    /// Runs `lock` (a query answering true or false) on a connection kept aside: when it answers true, the claim keeps
    /// the connection until it is released, which runs `release` and hands the connection back.
    func claim(_ lock: PostgresQuery, release: PostgresQuery) throws -> RefreshClaim? {
        permits.wait()
        let connection: PostgresConnection
        do {
            connection = try take()
            let link = PostgresLink(connection: connection, logger: logger)
            if try link.value(lock, as: Bool.self) == true {
                return PostgresClaim(pool: self, link: link, release: release)
            }
            giveBack(connection)
        } catch {
            permits.signal()
            throw error
        }
        return nil
    }

    /// Returns a lent connection (unless it broke) and its permit.
    fileprivate func giveBack(_ connection: PostgresConnection) {
        if !connection.isClosed { idle.withLock { $0.append(connection) } }
        permits.signal()
    }

    private func take() throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        do {
            return try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                                                  id: id, logger: logger).wait()
        } catch {
            throw StoreError(.cannotOpen, "cannot connect to \(location): \(PostgresLink.describe(error))")
        }
    }

    /// Closes the idle connections (those lent out close when they come back broken, or with the process).
    func close() {
        for connection in idle.withLock({ connections in defer { connections.removeAll() }; return connections }) {
            _ = try? connection.close().wait()   // Closing is best effort: the server drops the session either way.
        }
    }
}

/// One borrowed connection: queries that wait for their answer.
struct PostgresLink: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Every row `query` returns.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try Self.failing(query) { try connection.query(query, logger: logger).wait().rows }
    }

    /// Runs a statement; the number of rows it changed.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try Self.failing(query) { try connection.query(query, logger: logger).wait().metadata.rows ?? 0 }
    }

    /// The first column of the first row, if any.
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) throws -> T? {
        guard let row = try self.query(query).first else { return nil }
        // NULL reads as nil: the first cell decodes as T only when it holds a value.
        let cell = row.makeRandomAccess()[0]
        guard cell.bytes != nil else { return nil }
        return try Self.failing(query) { try cell.decode(T.self) }
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if (try? execute("ROLLBACK")) == nil {
                // A connection that cannot roll back is unusable: closing it keeps it out of the pool.
                _ = try? connection.close().wait()
            }
            throw error
        }
    }

    /// Reads the rows of `query` `batch` at a time through a cursor (inside the caller's transaction), so a scan of
    /// every programme never holds them all.
    func forEachRow(_ query: PostgresQuery, batch: Int = 2000, _ body: (PostgresRow) throws -> Void) throws {
        var declare = query
        declare.sql = "DECLARE tvguide_scan NO SCROLL CURSOR FOR " + query.sql
        try execute(declare)
        while true {
            let rows = try self.query(PostgresQuery(unsafeSQL: "FETCH FORWARD \(batch) FROM tvguide_scan"))
            for row in rows { try body(row) }
            if rows.count < batch { break }
        }
        try execute("CLOSE tvguide_scan")
    }

    /// Runs `work`, turning PostgresNIO's errors into StoreErrors that say what the server said.
    static func failing<T>(_ query: PostgresQuery, _ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as StoreError {
            throw error
        } catch {
            let state = (error as? PSQLError)?.serverInfo?[.sqlState]
            let code: StoreError.Code = state == "23505" ? .conflict : .failed
            throw StoreError(code, "the database failed: \(describe(error))")
        }
    }

    /// What the server (or the connection) said went wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        // A connection that failed below PostgreSQL (refused, TLS: an untrusted certificate) says so in its cause.
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

/// A session-level advisory lock held on its own connection. PostgreSQL releases it if the process dies.
final class PostgresClaim: RefreshClaim {
    private let state: Mutex<(pool: PostgresPool, link: PostgresLink)?>
    private let releasing: PostgresQuery

    fileprivate init(pool: PostgresPool, link: PostgresLink, release: PostgresQuery) {
        state = Mutex((pool, link))
        releasing = release
    }

    func release() {
        guard let (pool, link) = state.withLock({ state in defer { state = nil }; return state }) else { return }
        if (try? link.execute(releasing)) == nil {
            // A lock that could not be released goes with its session.
            _ = try? link.connection.close().wait()
        }
        pool.giveBack(link.connection)
    }

    deinit {
        release()
    }
}
