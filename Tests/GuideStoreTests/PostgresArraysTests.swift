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

    static func read(_ bytes: [UInt8], type: PostgresDataType = .int8Array,
                     format: PostgresFormat = .binary) throws -> [Int64] {
        var buffer = ByteBuffer(bytes: bytes)
        return try PostgresInt64s(from: &buffer, type: type, format: format, context: .default).values
    }

    @Test func int8ArraysAreReadAsPostgresNIOReadsThem() throws {
        for values: [Int64] in [[], [0, -1, 1, Int64.max, Int64.min], Array(0..<2_000).map { $0 * 7_919 }] {
            var buffer = ByteBuffer(bytes: Self.written(values))
            #expect(try Self.read(Self.written(values)) == values)
            #expect(try [Int64](from: &buffer, type: .int8Array, format: .binary, context: .default) == values)
        }
    }

    @Test func anythingButAnInt8ArrayWithoutNullsIsRefused() throws {
        let three = Self.written([Int64(1), 2, 3])
        // The element type, the array's type and the format named otherwise.
        #expect(throws: (any Error).self) { try Self.read(Self.written([Int32(1)]), type: .int4Array) }
        #expect(throws: (any Error).self) { try Self.read(Self.written([Int32(1)])) }
        #expect(throws: (any Error).self) { try Self.read(three, format: .text) }
        // Floats' bits are not ids: 1e308, NaN and infinity in a float8[] are refused, named int8[] or not.
        let floats = Self.written([1e308, Double.nan, -Double.infinity])
        #expect(throws: (any Error).self) { try Self.read(floats) }
        #expect(throws: (any Error).self) { try Self.read(floats, type: .float8Array) }
        // Cut anywhere: in the header, in an element's length, in its value.
        for end in [0, 3, 11, 15, 19, 23, 27, 30, three.count - 1] {
            #expect(throws: (any Error).self) { try Self.read(Array(three[..<end])) }
        }
        // A NULL among them (length -1), a count past the bytes there are or below 0, two dimensions.
        var null = three
        null.replaceSubrange(4..<8, with: [0, 0, 0, 1])
        null.replaceSubrange(32..<36, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: (any Error).self) { try Self.read(null) }
        for count: [UInt8] in [[0x7F, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 4]] {
            var counted = three
            counted.replaceSubrange(12..<16, with: count)
            #expect(throws: (any Error).self) { try Self.read(counted) }
        }
        var twoDimensions = three
        twoDimensions.replaceSubrange(0..<4, with: [0, 0, 0, 2])
        #expect(throws: (any Error).self) { try Self.read(twoDimensions) }
    }
}
