import GuideStore
import PostgresNIO

extension PostgresImportSession {
    /// The next ids of programmes, titles and bodies, which the session hands out itself: taken from their tables'
    /// sequences as the import begins and set back past the last one used at its end (``claim(on:)``,
    /// ``release(on:)``). Only an import adds programmes, titles and bodies, and imports take turns.
    struct Serials {
        struct Serial {
            let first: Int64
            private(set) var next: Int64

            init(first: Int64) {
                self.first = first
                next = first
            }

            /// The first of `count` ids in a row; a sequence already near the end of bigint refuses the import rather
            /// than trapping (PostgreSQL refuses past it as well).
            mutating func take(_ count: Int = 1) throws -> Int64 {
                let (end, overflow) = next.addingReportingOverflow(Int64(count))
                guard !overflow else { throw StoreError(.failed, "the ids of the database's rows are used up") }
                defer { next = end }
                return next
            }

            /// The last id handed out, or the first when none was.
            var last: Int64 { max(first, next - 1) }
        }

        var programme: Serial, title: Serial, body: Serial

        /// The sequences' next values, each taken: the session hands them out from there.
        static func claim(on link: PostgresLink) async throws -> Serials {
            let row = try await link.query("""
                SELECT nextval(pg_get_serial_sequence('programme', 'id')),
                       nextval(pg_get_serial_sequence('title', 'id')), nextval(pg_get_serial_sequence('body', 'id'))
                """).first
            guard let (programme, title, body) = try row?.decode((Int64, Int64, Int64).self) else {
                throw StoreError(.failed, "the sequences of programme, title and body ids did not answer")
            }
            return Serials(programme: Serial(first: programme), title: Serial(first: title), body: Serial(first: body))
        }

        /// Moves each sequence past the last id handed out, for the next import to go on from.
        func release(on link: PostgresLink) async throws {
            try await link.execute("""
                SELECT setval(pg_get_serial_sequence('programme', 'id'), \(programme.last)),
                       setval(pg_get_serial_sequence('title', 'id'), \(title.last)),
                       setval(pg_get_serial_sequence('body', 'id'), \(body.last))
                """)
        }
    }
}
