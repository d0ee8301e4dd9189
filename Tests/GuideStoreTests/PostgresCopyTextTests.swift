import Foundation
import GuideStore
@testable import GuideStorePostgres
import NIOCore
import StoreTestSupport
import Testing

/// Rows in `COPY`'s text format (``PostgresCopyText``): what an import's programmes are sent as. Every value the
/// server reads back must be the one written, whatever bytes a guide's text holds.
struct PostgresCopyTextTests {
    static func line(_ write: (inout PostgresCopyText) -> Void) -> String {
        var text = PostgresCopyText(capacity: 16)
        write(&text)
        return String(decoding: text.buffer.readableBytesView, as: UTF8.self)
    }

    @Test func valuesAreWrittenAsCopyReadsThem() {
        #expect(Self.line { $0.integer(0) } == "0")
        #expect(Self.line { $0.integer(-1) } == "-1")
        #expect(Self.line { $0.integer(1_796_256_000) } == "1796256000")
        #expect(Self.line { $0.integer(Int64.max) } == "9223372036854775807")
        #expect(Self.line { $0.integer(Int64.min) } == "-9223372036854775808")
        #expect(Self.line { $0.boolean(true); $0.next(); $0.boolean(false); $0.endRow() } == "t\tf\n")
        #expect(Self.line { $0.null() } == "\\N")
        // Backslash, tab, line feed and carriage return escaped; the rest as it is, other languages included.
        #expect(Self.line { $0.text("a\\b\tc\nd\re \\N 新闻 café\u{301}") }
                    == "a\\\\b\\tc\\nd\\re \\\\N 新闻 café\u{301}")
        #expect(Self.line { $0.text("") } == "")
        #expect(Self.line { $0.bytes([]) } == "\\\\x")
        #expect(Self.line { $0.bytes([0x00, 0x0A, 0x5C, 0xA5, 0xFF]) } == "\\\\x000a5ca5ff")
    }

    /// Each row as the server reads it back: an integer, a boolean, a text or NULL, bytes.
    struct Row: Equatable {
        var number: Int64, flag: Bool, words: String?, bytes: [UInt8]
    }

    @Test(.enabled(if: TestDatabase.postgres != nil))
    func theServerReadsBackEveryValueWritten() async throws {
        // Given values at their edges: every byte, every escape, long texts, an empty text beside NULL.
        let rows = [
            Row(number: Int64.min, flag: true, words: "", bytes: []),
            Row(number: Int64.max, flag: false, words: nil, bytes: Array(0...255)),
            Row(number: 0, flag: true, words: "tab\there\nline\r\\ \\N \\. 新闻联播 café\u{301} 🎬",
                bytes: [0x5C, 0x09, 0x0A]),
            Row(number: -1, flag: false, words: String(repeating: "x\t", count: 40_000),
                bytes: Array(repeating: 0xA5, count: 70_000)),
        ]
        let store = try #require(try await TestDatabase.open(in: TestScratch.folder("tvguide-copy"))
                                     as? PostgresListingStore)
        // When they are copied into a table and read back.
        let read = try await store.pool.withConnection { link in
            try await link.execute("CREATE TEMPORARY TABLE copied (n bigint, f boolean, w text, b bytea)")
            try await link.copy(into: "copied", columns: ["n", "f", "w", "b"]) {
                var text = PostgresCopyText(capacity: 1024)
                for row in rows {
                    text.integer(row.number); text.next()
                    text.boolean(row.flag); text.next()
                    if let words = row.words { text.text(words) } else { text.null() }
                    text.next()
                    text.bytes(row.bytes)
                    text.endRow()
                }
                return text.buffer
            }
            return try await link.query("SELECT n, f, w, b FROM copied").map { row in
                let (number, flag, words, bytes) = try row.decode((Int64, Bool, String?, ByteBuffer).self)
                return Row(number: number, flag: flag, words: words, bytes: Array(bytes.readableBytesView))
            }
        }
        // Then each is the row written.
        #expect(read == rows)
    }
}
