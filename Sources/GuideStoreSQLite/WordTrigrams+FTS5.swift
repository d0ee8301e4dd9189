import GRDB
import GRDBSQLite
import GuideStore

/// `word_trigrams`: the FTS5 tokenizer of the title and body trigram indexes (v38), registered on every connection
/// of the store. It yields each trigram within a word of a text once (``WordTrigrams``), where FTS5's own `trigram`
/// tokenizer indexed every trigram across words too, and every repeat. A search checks every text the index gives it
/// (``SQLiteListingStore/trigrams(of:)``).
///
/// A database made by this version cannot be searched by an `sqlite3` shell, which lacks the tokenizer; everything
/// else in it reads as before.
extension WordTrigrams {
    static let name = "word_trigrams"

    static func register(_ db: Database) throws {
        let connection = db.sqliteConnection
        var api: UnsafeMutablePointer<fts5_api>?
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(connection, "SELECT fts5(?1)", -1, &statement, nil)
        if code == SQLITE_OK {
            // FTS5 hands its API out through a pointer bound under this type name, compared while the statement runs.
            let type: StaticString = "fts5_api_ptr"
            code = withUnsafeMutablePointer(to: &api) { pointer in
                let bound = UnsafeRawPointer(type.utf8Start).assumingMemoryBound(to: CChar.self)
                sqlite3_bind_pointer(statement, 1, pointer, bound, nil)
                return sqlite3_step(statement) == SQLITE_ROW ? SQLITE_OK : SQLITE_ERROR
            }
        }
        sqlite3_finalize(statement)
        guard code == SQLITE_OK, let api, let create = api.pointee.xCreateTokenizer else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "no FTS5 to register \(name) with")
        }
        var tokenizer = fts5_tokenizer(xCreate: { _, _, arguments, tokenizer in
            // No options; the instance holds nothing, so any non-null pointer will do (FTS5 only hands it back).
            guard arguments == 0 else { return SQLITE_ERROR }
            tokenizer?.pointee = OpaquePointer(bitPattern: 1)
            return SQLITE_OK
        }, xDelete: { _ in }, xTokenize: { _, context, _, text, count, token in
            guard let text, let token, count > 0 else { return SQLITE_OK }
            let start = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
            var code = SQLITE_OK
            WordTrigrams.forEach(in: UnsafeBufferPointer(start: start, count: Int(count))) { range, _ in
                let (from, to) = (Int32(range.lowerBound), Int32(range.upperBound))
                code = token(context, 0, text + range.lowerBound, to - from, from, to)
                return code == SQLITE_OK
            }
            return code
        })
        code = create(api, name, nil, &tokenizer, nil)  // FTS5 copies the struct.
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(name)")
        }
    }
}
