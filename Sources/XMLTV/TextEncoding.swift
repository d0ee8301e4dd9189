/// The encodings listings files declare, and the transcoding to UTF-8 that the scanner works in.
enum TextEncoding: Sendable {
    case utf8
    case latin1
    case windows1252

    /// The encoding for an XML declaration's `encoding` value; nil when it is not one we read.
    init?(declared name: String) {
        switch name.lowercased() {
        case "utf-8", "utf8", "us-ascii", "ascii": self = .utf8
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "iso_8859-1", "l1": self = .latin1
        case "windows-1252", "cp1252", "x-cp1252": self = .windows1252
        default: return nil
        }
    }

    /// Appends `bytes` to `output` as UTF-8. Every byte is a character in these single-byte encodings.
    func transcode(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                output.append(byte)
                continue
            }
            var scalar = UInt32(byte)
            if self == .windows1252, byte < 0xA0 {
                scalar = UInt32(Self.windows1252High[Int(byte - 0x80)])
            }
            if scalar < 0x800 {
                output.append(UInt8(0xC0 | (scalar >> 6)))
                output.append(UInt8(0x80 | (scalar & 0x3F)))
            } else {
                output.append(UInt8(0xE0 | (scalar >> 12)))
                output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                output.append(UInt8(0x80 | (scalar & 0x3F)))
            }
        }
    }

    /// Windows-1252's 0x80-0x9F (undefined ones map to the C1 control of the same value, as browsers do).
    static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]
}
