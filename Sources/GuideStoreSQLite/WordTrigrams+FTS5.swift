import GRDB
import GRDBSQLite
import GuideStore

/// `word_trigrams`: the FTS5 tokenizer of the title and body trigram indexes of v38 to v40, registered on every
/// connection of the store so that the migrations up to v41 can still build, rebuild and drop those FTS5 tables; v41
/// replaced them with our own (``TrigramIndex``). It yields each trigram within a word of a text once
/// (``WordTrigrams``), where FTS5's own `trigram` tokenizer indexed every trigram across words too, and every repeat.
///
/// Each trigram is yielded as its code spelled in five bytes (``spell(_:into:)``, v39), not as its three characters:
/// FTS5 keeps an insert's tokens in a hash table whose function, `h = (h << 3) ^ h ^ byte`, is linear over the bits
/// of a short token, so the trigrams of three letters shared its slots (chains of 4.3 tokens on average in the 0.1 M
/// guide's bodies, 15 at most, each a cache miss), where the codes spread (1.3).
extension WordTrigrams {
    static let name = "word_trigrams"

    /// Registers the tokenizer on `db`'s connection; `spelled: false` registers it as v38 made it, yielding the
    /// trigrams as they are (what a test of v39's migration writes an index of v38 with).
    static func register(_ db: Database, spelled: Bool = true) throws {
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
        var tokenizer = fts5_tokenizer(xCreate: { spelling, _, arguments, tokenizer in
            // No options; the instance is the registration's pointer, which says whether to spell (2) or not (1):
            // FTS5 only hands it back.
            guard arguments == 0 else { return SQLITE_ERROR }
            tokenizer?.pointee = OpaquePointer(spelling)
            return SQLITE_OK
        }, xDelete: { _ in }, xTokenize: { instance, context, _, text, count, token in
            guard let text, let token, count > 0 else { return SQLITE_OK }
            let start = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
            let spells = instance == OpaquePointer(bitPattern: 2)
            var code = SQLITE_OK
            var spelled: (CChar, CChar, CChar, CChar, CChar) = (0, 0, 0, 0, 0)
            WordTrigrams.forEach(in: UnsafeBufferPointer(start: start, count: Int(count))) { range, key in
                let (from, to) = (Int32(range.lowerBound), Int32(range.upperBound))
                guard spells else {
                    code = token(context, 0, text + range.lowerBound, to - from, from, to)
                    return code == SQLITE_OK
                }
                code = withUnsafeMutableBytes(of: &spelled) { bytes in
                    WordTrigrams.spell(key, into: bytes)
                    let spelling = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                    return token(context, 0, spelling, Int32(bytes.count), from, to)
                }
                return code == SQLITE_OK
            }
            return code
        })
        // FTS5 copies the struct.
        code = create(api, name, UnsafeMutableRawPointer(bitPattern: spelled ? 2 : 1), &tokenizer, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(name)")
        }
    }

    /// A trigram's token in FTS5: its code (``code(of:)``) as five digits of base 127, each 1-127 (ASCII, and no 0).
    static func spell(_ key: UInt64, into bytes: UnsafeMutableRawBufferPointer) {
        var value = UInt32(bitPattern: code(of: key))
        for index in 0..<bytes.count {
            bytes[index] = UInt8(1 + value % 127)
            value /= 127
        }
    }
}
