import NIOCore

/// Rows in the text format of PostgreSQL's `COPY … FROM STDIN`: values a tab apart, a row a line, written straight into
/// one buffer. An import's programmes go in so (``PostgresImportSession/Batch``): storing 503,521 programme rows with
/// their two indexes took the server 1.65-2.1 s by `COPY`, against 4.2 s for the statements of arrays that stored them
/// before (`unnest` of eleven arrays, joined to the titles and bodies found, sorted, returned; docs/performance.md).
/// PostgresNIO's `copyFrom` sends the text format only.
struct PostgresCopyText {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// An integer in decimal.
    mutating func integer(_ value: Int64) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 20) { out in
            var magnitude = value.magnitude, digits = 1
            while magnitude >= 10 {
                magnitude /= 10
                digits += 1
            }
            let sign = value < 0 ? 1 : 0
            if sign == 1 { out[0] = UInt8(ascii: "-") }
            magnitude = value.magnitude
            for index in stride(from: sign + digits - 1, through: sign, by: -1) {
                out[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            }
            return sign + digits
        }
    }

    mutating func boolean(_ value: Bool) {
        buffer.writeInteger(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
    }

    /// No value (SQL's NULL).
    mutating func null() {
        buffer.writeStaticString("\\N")
    }

    /// Text, its backslashes, tabs, line feeds and carriage returns escaped as `COPY` reads them.
    mutating func text(_ value: String) {
        var value = value
        _ = value.withUTF8 { bytes in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 2 * bytes.count) { out in
                var written = 0
                for byte in bytes {
                    let escaped: UInt8? = switch byte {
                    case UInt8(ascii: "\\"): UInt8(ascii: "\\")
                    case UInt8(ascii: "\t"): UInt8(ascii: "t")
                    case UInt8(ascii: "\n"): UInt8(ascii: "n")
                    case UInt8(ascii: "\r"): UInt8(ascii: "r")
                    default: nil
                    }
                    if let escaped {
                        out[written] = UInt8(ascii: "\\")
                        out[written + 1] = escaped
                        written += 2
                    } else {
                        out[written] = byte
                        written += 1
                    }
                }
                return written
            }
        }
    }

    /// Bytes as `bytea`'s hex form (`\x` and two digits a byte), its backslash escaped.
    mutating func bytes(_ value: [UInt8]) {
        _ = value.withUnsafeBufferPointer { bytes in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 3 + 2 * bytes.count) { out in
                out[0] = UInt8(ascii: "\\")
                out[1] = UInt8(ascii: "\\")
                out[2] = UInt8(ascii: "x")
                var written = 3
                for byte in bytes {
                    out[written] = Self.hexDigit(byte >> 4)
                    out[written + 1] = Self.hexDigit(byte & 0x0F)
                    written += 2
                }
                return written
            }
        }
    }

    /// Ends a value that another follows in its row.
    mutating func next() {
        buffer.writeInteger(UInt8(ascii: "\t"))
    }

    /// Ends a row.
    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// The lower-case hex digit of a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
    }
}
