import GRDB
import GRDBSQLite

/// `word_trigrams`: the FTS5 tokenizer of the title and body trigram indexes (v38), registered on every connection
/// of the store. It yields each trigram (three characters) that lies within one word of a text, once a text; words
/// end at whitespace and control characters (``isSeparator(_:)``).
///
/// A search term holds no whitespace (``SearchQuery`` splits on it), so no search ever asked for a trigram that spans
/// two words, and FTS5's own `trigram` tokenizer indexed all of those and every repeat besides: a description of the
/// 0.1 M-programme guide gave it 220 tokens, of which 101 are distinct trigrams within words. Neither the texts nor
/// the terms are folded here: both are folded already (``SearchText``), and a search checks every text the index
/// gives it (``SQLiteListingStore/trigrams(of:)``).
///
/// A database made by this version cannot be searched by an `sqlite3` shell, which lacks the tokenizer; everything
/// else in it reads as before.
enum WordTrigrams {
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
            return WordTrigrams.forEach(in: UnsafeBufferPointer(start: start, count: Int(count))) { range in
                let (from, to) = (Int32(range.lowerBound), Int32(range.upperBound))
                return token(context, 0, text + range.lowerBound, to - from, from, to)
            }
        })
        code = create(api, name, nil, &tokenizer, nil)  // FTS5 copies the struct.
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(name)")
        }
    }

    /// The trigrams of `term` that every text holding it holds: those within each of its words, each once, in order.
    static func trigrams(of term: String) -> [String] {
        var term = term
        return term.withUTF8 { bytes in
            var found: [String] = []
            _ = forEach(in: bytes) { range in
                found.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                return SQLITE_OK
            }
            return found
        }
    }

    /// Calls `body` with the bytes of each trigram within a word of `bytes` (UTF-8), once each, in order, until it
    /// returns other than `SQLITE_OK`; returns what it last returned. A byte that does not begin a valid character
    /// ends a word, as a separator does.
    static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Int32) -> Int32 {
        var seen = TrigramSet(texts: bytes.count)
        defer { seen.free() }
        // The key packs the word's last three characters (21 bits each); the starts are the first bytes of the two
        // before the one just read.
        var key: UInt64 = 0, twoBack = 0, oneBack = 0, inWord = 0, index = 0
        while index < bytes.count {
            let (value, length) = character(in: bytes, at: index)
            guard let value, !isSeparator(value) else {
                inWord = 0
                index += length
                continue
            }
            key = (key << 21 | UInt64(value)) & (1 << 63 - 1)
            inWord += 1
            let start = twoBack
            (twoBack, oneBack) = (oneBack, index)
            index += length
            // Every character of a word is at least 1 (0 is a control character), so no key of three is 0.
            if inWord >= 3, seen.insert(key) {
                let code = body(start..<index)
                if code != SQLITE_OK { return code }
            }
        }
        return SQLITE_OK
    }

    /// The character whose first byte is at `index` and its length in bytes; nil (and 1) where no valid one begins.
    private static func character(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32?, Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (UInt32(lead), 1) }
        let length = lead >= 0xF5 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return (nil, 1) }
        var value = UInt32(lead) & (0x7F >> length)
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (value, length)
    }

    /// Whether a character ends a word: Unicode's White_Space and the control characters (Cc), what ``SearchQuery``
    /// splits a search's words on.
    static func isSeparator(_ value: UInt32) -> Bool {
        switch value {
        case 0...0x20, 0x7F...0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

/// The trigram keys one text has yielded so far: open addressing in a table of at least twice the text's bytes, at
/// most 65,536 entries; past half of that (a text of more than 32,768 distinct trigrams) every trigram is yielded,
/// and FTS5 keeps each once itself.
private struct TrigramSet {
    private let slots: UnsafeMutableBufferPointer<UInt64>
    private let shift: UInt64
    private var count = 0

    init(texts bytes: Int) {
        var bits = 4
        while bits < 16 && 1 << bits < 2 * bytes { bits += 1 }
        slots = .allocate(capacity: 1 << bits)
        slots.initialize(repeating: 0)
        shift = UInt64(64 - bits)
    }

    /// Whether `key` (not 0) is new to this text; true too once the table is half full.
    mutating func insert(_ key: UInt64) -> Bool {
        guard count < slots.count / 2 else { return true }
        let mask = slots.count - 1
        var slot = Int((key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while slots[slot] != 0 {
            if slots[slot] == key { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = key
        count += 1
        return true
    }

    func free() { slots.deallocate() }
}
