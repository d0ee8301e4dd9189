import NIOCore
import PostgresNIO

/// Arrays sent as one parameter each (`unnest($1::bigint[], …)`), written in PostgreSQL's binary array format in one
/// pass. PostgresNIO writes an array one element at a time through its generic encoding (a length placeholder, the
/// value, the length set back: about 85 ns an element here), and an import sends millions: the 0.1 M guide's
/// descriptions alone are 3.4 million trigram codes. Encoding arrays took a fifth of tvguide's CPU
/// in that import (docs/performance.md). These overloads are chosen over PostgresNIO's generic one for every array of
/// these element types put into a `PostgresQuery`, so that every statement sends its arrays this way.
extension PostgresQuery.StringInterpolation {
    mutating func appendInterpolation(_ values: [Int64]) { appendInterpolation(PostgresArray(values)) }
    mutating func appendInterpolation(_ values: [Int32]) { appendInterpolation(PostgresArray(values)) }
    mutating func appendInterpolation(_ values: [Bool]) { appendInterpolation(PostgresArray(values)) }
    mutating func appendInterpolation(_ values: [String]) { appendInterpolation(PostgresArray(values)) }
    mutating func appendInterpolation(_ values: [[UInt8]]) { appendInterpolation(PostgresArray(values)) }
}

/// One array parameter of ``PostgresArrayElement``s, one dimension, no NULLs, as PostgresNIO's own encoding of an
/// array writes it (`PostgresArraysTests` compares the bytes).
struct PostgresArray<Element: PostgresArrayElement>: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { Element.arrayType }
    static var psqlFormat: PostgresFormat { .binary }

    let values: [Element]

    init(_ values: [Element]) {
        self.values = values
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer,
                                                  context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (none when empty), whether any element is NULL, the elements' type; then the one dimension's
        // length and lower bound.
        buffer.writeInteger(values.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(0, as: Int32.self)
        buffer.writeInteger(Element.elementType.rawValue)
        guard !values.isEmpty else { return }
        buffer.writeInteger(Int32(clamping: values.count))
        buffer.writeInteger(1, as: Int32.self)
        Element.write(values, into: &buffer)
    }
}

/// What an element of a ``PostgresArray`` is to PostgreSQL, and how a run of them is written: each its length in
/// four bytes, then its bytes.
protocol PostgresArrayElement {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    static func write(_ values: [Self], into buffer: inout ByteBuffer)
}

extension PostgresArrayElement where Self: FixedWidthInteger {
    static func write(_ values: [Self], into buffer: inout ByteBuffer) {
        writeIntegers(values, into: &buffer)
    }
}

/// Every element in one write into space taken once.
private func writeIntegers<Integer: FixedWidthInteger>(_ values: [Integer], into buffer: inout ByteBuffer) {
    let size = MemoryLayout<Integer>.size, stride = 4 + size
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: values.count * stride) { bytes in
        var offset = 0
        for value in values {
            bytes.storeBytes(of: Int32(size).bigEndian, toByteOffset: offset, as: Int32.self)
            bytes.storeBytes(of: value.bigEndian, toByteOffset: offset + 4, as: Integer.self)
            offset += stride
        }
        return offset
    }
}

extension Int64: PostgresArrayElement {
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }
}

extension Int32: PostgresArrayElement {
    static var elementType: PostgresDataType { .int4 }
    static var arrayType: PostgresDataType { .int4Array }
}

extension Bool: PostgresArrayElement {
    static var elementType: PostgresDataType { .bool }
    static var arrayType: PostgresDataType { .boolArray }

    static func write(_ values: [Bool], into buffer: inout ByteBuffer) {
        writeIntegers(values.map { UInt8($0 ? 1 : 0) }, into: &buffer)
    }
}

/// Texts and byte strings: the space for all of them taken once, then each written. A length is at most
/// `Int32.max`; PostgreSQL refuses any value over 1 GB, so a longer one (which no reader here lets through) fails the
/// statement at the server instead of stopping the process.
private func writeRuns<Run>(_ values: [Run], count: (Run) -> Int, into buffer: inout ByteBuffer,
                            bytes write: (Run, inout ByteBuffer) -> Void) {
    buffer.reserveCapacity(minimumWritableBytes: values.reduce(0) { $0 + 4 + count($1) })
    for value in values {
        buffer.writeInteger(Int32(clamping: count(value)))
        write(value, &buffer)
    }
}

extension String: PostgresArrayElement {
    static var elementType: PostgresDataType { .text }
    static var arrayType: PostgresDataType { .textArray }

    static func write(_ values: [String], into buffer: inout ByteBuffer) {
        writeRuns(values, count: \.utf8.count, into: &buffer) { $1.writeString($0) }
    }
}

extension Array: PostgresArrayElement where Element == UInt8 {
    static var elementType: PostgresDataType { .bytea }
    static var arrayType: PostgresDataType { .byteaArray }

    static func write(_ values: [[UInt8]], into buffer: inout ByteBuffer) {
        writeRuns(values, count: \.count, into: &buffer) { $1.writeBytes($0) }
    }
}

/// An `int8[]` answer read in one pass: PostgresNIO reads an array one element at a time through its generic decoding,
/// and an import's batches were answered by three arrays of 2,000 ids each (now the ids of the texts a batch looked
/// for, ``PostgresImportSession/ProbedTexts``). One dimension or none (empty), no NULLs; anything else is refused,
/// not trapped on.
struct PostgresInt64s: PostgresDecodable {
    let values: [Int64]

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>) throws {
        guard format == .binary, type == .int8Array,
              let dimensions = buffer.readInteger(as: Int32.self), let hasNulls = buffer.readInteger(as: Int32.self),
              let element = buffer.readInteger(as: UInt32.self), hasNulls == 0,
              element == PostgresDataType.int8.rawValue, dimensions == 0 || dimensions == 1 else {
            throw PostgresDecodingError.Code.typeMismatch
        }
        guard dimensions == 1 else {
            values = []
            return
        }
        // Each element is its length (8) and its value: the count must fit in what is left.
        guard let count = buffer.readInteger(as: Int32.self), buffer.readInteger(as: Int32.self) != nil, count >= 0,
              Int(count) <= buffer.readableBytes / 12 else {
            throw PostgresDecodingError.Code.failure
        }
        var read: [Int64] = []
        read.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard buffer.readInteger(as: Int32.self) == 8, let value = buffer.readInteger(as: Int64.self) else {
                throw PostgresDecodingError.Code.failure
            }
            read.append(value)
        }
        values = read
    }
}
