import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization
import GuideStore

/// Connections to one PostgreSQL database: PostgresNIO's `PostgresClient`, which keeps at most `limit` open and
/// lends them to async callers. Its ``run()`` must be running (in the service group, or on its own: ``openGuideDatabase``) for
/// anything to be asked.
final class PostgresConnections: Sendable {
    let client: PostgresClient
    private let location: PostgresLocation
    private let logger: Logger
    /// What ``probe()`` connects with: the client's settings.
    private let probing: PostgresConnection.Configuration
    /// Its connections' use, for /metrics.
    private let use: StorePoolUse

    init(_ location: PostgresLocation, limit: Int) throws {
        let tls = try Self.tls(location)
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: location.password, database: location.database,
                                                         tls: tls.map { .require($0) } ?? .disable)
        var probing = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                       password: location.password, database: location.database,
                                                       tls: try tls.map { .require(try NIOSSLContext(configuration: $0)) } ?? .disable)
        probing.options.connectTimeout = .seconds(10)
        self.probing = probing
        // No JIT compilation: the planner's estimates of the import's statements (a probe per wanted text) pass its
        // threshold, and compiling each took 0.2-0.3 s of a 0.35-0.5 s statement (3 s of a 0.1 M-programme import,
        // issue 46); none of the guide's queries runs long enough to repay it.
        configuration.options.additionalStartupParameters = [("jit", "off")]
        if let schema = location.schema {
            configuration.options.additionalStartupParameters.append(("search_path", "\(schema), public"))
        }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = max(1, limit)
        use = StorePoolUse(store: "postgres", limit: max(1, limit))
        self.location = location
        var logger = Logger(label: "tvguide.postgres")
        logger.logLevel = .critical
        self.logger = logger
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// TLS as `sslmode` asks: none, encryption only, or encryption with the certificate and host name checked.
    private static func tls(_ location: PostgresLocation) throws -> TLSConfiguration? {
        switch location.tls {
        case .disable:
            return nil
        case .require:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return tls
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
            return tls
        }
    }

    /// Opens and closes one connection of its own: a wrong address, password or certificate fails here at once, where
    /// the client would retry for a minute first.
    func probe() async throws {
        do {
            let connection = try await PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: probing,
                                                                  id: 0, logger: logger).get()
            try? await connection.close().get()   // Closing is best effort: the server drops the session either way.
        } catch {
            throw StoreError(.cannotOpen, "cannot connect to \(location): \(PostgresLink.describe(error))")
        }
    }

    /// Keeps the connections until cancelled or shut down gracefully.
    func run() async {
        await client.run()
    }

    /// Runs `body` with a connection of its own, lent back afterwards.
    @discardableResult
    func withConnection<T: Sendable>(_ body: (PostgresLink) async throws -> T) async throws -> T {
        do {
            let asked = ContinuousClock.now
            return try await client.withConnection { connection in
                use.borrowed(askedAt: asked)
                defer { use.returned() }
                return try await body(PostgresLink(connection: connection, logger: logger))
            }
        } catch let error as StoreError {
            throw error
        } catch let error as PSQLError where error.code == .connectionError || error.code == .serverClosedConnection
                                            || error.code == .sslUnsupported || error.code == .failedToAddSSLHandler {
            throw StoreError(.cannotOpen, "cannot connect to \(location): \(PostgresLink.describe(error))")
        } catch let error as PSQLError {
            throw StoreError(.failed, "the database failed: \(PostgresLink.describe(error))")
        }
    }

    /// Runs `body` inside one transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func transaction<T: Sendable>(_ body: (PostgresLink) async throws -> T) async throws -> T {
        try await withConnection { link in try await link.transaction { try await body(link) } }
    }
}

/// One borrowed connection: queries that wait for their answer.
struct PostgresLink: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Every row `query` returns.
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await Self.failing(query) { try await connection.query(query, logger: logger).get().rows }
    }

    /// Runs a statement; the number of rows it changed.
    @discardableResult
    func execute(_ query: PostgresQuery) async throws -> Int {
        try await Self.failing(query) { try await connection.query(query, logger: logger).get().metadata.rows ?? 0 }
    }

    /// Sends `query` now, in order with everything this link sent before it, and reads its rows later: the caller goes
    /// on while the server works (an import's batches). Queries on a link run one after another on the server, so
    /// one sent after it sees what it wrote.
    func send<T: Sendable>(_ query: PostgresQuery, _ decode: @escaping @Sendable (PostgresRow) throws -> T) -> Task<[T], any Error> {
        let answer = connection.query(query, logger: logger)
        return Task { try await Self.failing(query) { try await answer.get().rows.map(decode) } }
    }

    /// Stores the rows `rows` makes (``PostgresCopyText``) in `table`'s `columns` by `COPY … FROM STDIN`, once the
    /// server is ready for them: after everything this link sent before the `COPY` was made.
    func copy(into table: String, columns: [String],
              _ rows: @Sendable () async throws -> ByteBuffer) async throws {
        try await Self.failing("COPY \(unescaped: table)") {
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                try await writer.write(try await rows())
            }
        }
    }

    /// The first column of the first row, if any.
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T? {
        guard let row = try await self.query(query).first else { return nil }
        // NULL reads as nil: the first cell decodes as T only when it holds a value.
        let cell = row.makeRandomAccess()[0]
        guard cell.bytes != nil else { return nil }
        return try await Self.failing(query) { try cell.decode(T.self) }
    }

    func transaction<T>(_ body: () async throws -> T) async throws -> T {
        try await execute("BEGIN")
        do {
            let result = try await body()
            try await execute("COMMIT")
            return result
        } catch {
            if (try? await execute("ROLLBACK")) == nil {
                // A connection that cannot roll back is unusable: closing it keeps it out of the pool.
                try? await connection.close()
            }
            throw error
        }
    }

    /// Reads the rows of `query` `batch` at a time through a cursor (inside the caller's transaction), so a scan of
    /// every programme never holds them all.
    func forEachRow(_ query: PostgresQuery, batch: Int = 2000, _ body: (PostgresRow) throws -> Void) async throws {
        var declare = query
        declare.sql = "DECLARE tvguide_scan NO SCROLL CURSOR FOR " + query.sql
        try await execute(declare)
        while true {
            let rows = try await self.query(PostgresQuery(unsafeSQL: "FETCH FORWARD \(batch) FROM tvguide_scan"))
            for row in rows { try body(row) }
            if rows.count < batch { break }
        }
        try await execute("CLOSE tvguide_scan")
    }

    /// Runs `work`, turning PostgresNIO's errors into StoreErrors that say what the server said.
    static func failing<T>(_ query: PostgresQuery, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
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
