@testable import GuideStorePostgres
import NIOCore
import PostgresNIO
import Testing

/// Arrays written in one pass (``PostgresArray``) are byte for byte what PostgresNIO's own encoding of the same array
/// writes, and name the same type: the server reads them as it read those.
struct PostgresArraysTests {
    static func written<Value: PostgresNonThrowingEncodable>(_ value: Value) -> [UInt8] {
        var buffer = ByteBuffer()
        value.encode(into: &buffer, context: .default)
        return Array(buffer.readableBytesView)
    }

    static func same<Element: PostgresArrayElement & PostgresArrayEncodable & PostgresNonThrowingEncodable>(
        _ values: [Element]) -> Bool {
        written(PostgresArray(values)) == written(values) && PostgresArray<Element>.psqlType == [Element].psqlType
    }

    @Test func integersBooleansAndTextsAreWrittenAsPostgresNIOWritesThem() {
        #expect(Self.same([Int64]()))
        #expect(Self.same([0, -1, 1, Int64.max, Int64.min, 1_796_256_000]))
        #expect(Self.same([Int32]()))
        #expect(Self.same([7, -7, Int32.max, Int32.min]))
        #expect(Self.same([true, false, true]))
        #expect(Self.same([Bool]()))
        #expect(Self.same(["", "news", "新闻联播", "café\u{301}", String(repeating: "x", count: 70_000)]))
        #expect(Self.same([String]()))
    }

    @Test func byteStringsAreWrittenAsPostgresNIOWritesByteBuffers() {
        let values: [[UInt8]] = [[], [0], [0xFF, 0x00, 0x7F], Array(repeating: 0xA5, count: 70_000)]
        #expect(Self.written(PostgresArray(values)) == Self.written(values.map { ByteBuffer(bytes: $0) }))
        #expect(Self.written(PostgresArray([[UInt8]]())) == Self.written([ByteBuffer]()))
        #expect(PostgresArray<[UInt8]>.psqlType == [ByteBuffer].psqlType)
    }
}
