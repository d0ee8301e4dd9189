#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GRDB
import GRDBSQLite

/// `holds(text, term)`: 1 when `text` holds `term`, 0 when not, NULL when either is NULL; registered on every
/// connection of the store and used where searches compare folded texts with a term.
///
/// SQLite's `instr` compares the term at each character of the text with a call to `memcmp`: a search for a word
/// shorter than a trigram ("新闻") scans the 63,000 distinct descriptions of 1.75 M programmes (14 MB), and `instr`
/// took 13 of that scan's 19 ms. This finds the term's last byte with `memchr` and compares the bytes before it (a
/// last byte is the rarer: a UTF-8 character's last byte is one of 64 values, its first of a few). For UTF-8 the
/// two agree: no character's bytes begin inside another's, so a byte match always starts and ends on characters.
enum HoldsFunction {
    static func register(_ db: Database) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(db.sqliteConnection, "holds", 2, flags, nil, { context, _, values in
            guard let values, let text = values[0], let term = values[1],
                  sqlite3_value_type(text) != SQLITE_NULL, sqlite3_value_type(term) != SQLITE_NULL else {
                sqlite3_result_null(context)
                return
            }
            // Text first, then its length: the length asked before the text could be of another encoding.
            let textBytes = sqlite3_value_text(text), textCount = Int(sqlite3_value_bytes(text))
            let termBytes = sqlite3_value_text(term), termCount = Int(sqlite3_value_bytes(term))
            let found: Bool
            if termCount == 0 {
                found = true
            } else if let textBytes, let termBytes, termCount <= textCount {
                found = Self.find(UnsafeRawPointer(termBytes), termCount, in: UnsafeRawPointer(textBytes), textCount)
            } else {
                found = false
            }
            sqlite3_result_int(context, found ? 1 : 0)
        }, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register holds()")
        }
    }

    /// Whether the `count` bytes at `term` (at least one, no more than `textCount`) occur in the text.
    static func find(_ term: UnsafeRawPointer, _ count: Int, in text: UnsafeRawPointer, _ textCount: Int) -> Bool {
        let last = Int32(term.load(fromByteOffset: count - 1, as: UInt8.self))
        var from = count - 1
        while from < textCount, let hit = memchr(text + from, last, textCount - from) {
            let end = UnsafeRawPointer(hit) - text
            if count == 1 || memcmp(text + end - (count - 1), term, count - 1) == 0 { return true }
            from = end + 1
        }
        return false
    }
}
