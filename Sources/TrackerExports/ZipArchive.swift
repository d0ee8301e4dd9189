import CZlib
import Foundation
import GuideCore

/// The files of a ZIP archive (the trackers' exports come zipped), read from its central directory: stored and
/// deflated members only, none encrypted (TV Time mailed its GDPR zips with a password: unzip it first). Bounded as
/// it is read: at most ``mostEntries`` members; the members read unpack to at most ``largestTotal`` bytes together
/// and ``InflationLimit/realRatio`` times the archive's size. A member's stated size is checked against what is left
/// before it is inflated, and it is inflated to that size and not a byte more (a member that says less than it holds
/// is damaged), so an archive never holds more memory than it said and was allowed.
enum ZipArchive {
    static let mostEntries = 2_000
    /// The members read from one archive, together: 50 MiB, a file's own limit (a zip is no way round it).
    static let largestTotal = 50 << 20

    /// Whether `bytes` start as a ZIP archive does.
    static func isZip(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06])
    }

    /// The members whose names `wanted` accepts (directories left out), by name.
    static func files(_ bytes: [UInt8], wanted: (String) -> Bool) throws(TrackerError) -> [(name: String, bytes: [UInt8])] {
        func u16(_ at: Int) -> Int { at + 2 <= bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : 0 }
        func u32(_ at: Int) -> Int { at + 4 <= bytes.count ? u16(at) | u16(at + 2) << 16 : 0 }
        // The end of central directory record: within the last 64 KB + 22 bytes.
        var end = -1
        var position = bytes.count - 22
        while position >= max(0, bytes.count - 65_557) {
            if bytes[position] == 0x50, bytes[position + 1] == 0x4B, bytes[position + 2] == 0x05, bytes[position + 3] == 0x06 { end = position; break }
            position -= 1
        }
        guard end >= 0 else { throw TrackerError(saying: "the zip file is cut short (no central directory): download it again") }
        let count = u16(end + 10)
        var entry = u32(end + 16)
        guard count <= Self.mostEntries else {
            throw TrackerError(saying: "the zip file has more than {count} files", ["count": String(Self.mostEntries)])
        }
        var files: [(name: String, bytes: [UInt8])] = []
        var total = 0
        for _ in 0..<count {
            guard entry + 46 <= bytes.count, u32(entry) == 0x0201_4B50 else { throw TrackerError(saying: "the zip file's directory is damaged") }
            let flags = u16(entry + 8), method = u16(entry + 10)
            let compressed = u32(entry + 20), size = u32(entry + 24)
            let nameLength = u16(entry + 28), extraLength = u16(entry + 30), commentLength = u16(entry + 32)
            let local = u32(entry + 42)
            guard entry + 46 + nameLength <= bytes.count else { throw TrackerError(saying: "the zip file's directory is damaged") }
            let name = String(decoding: bytes[(entry + 46)..<(entry + 46 + nameLength)], as: UTF8.self)
            entry += 46 + nameLength + extraLength + commentLength
            guard !name.hasSuffix("/"), wanted(name) else { continue }
            guard flags & 1 == 0 else {
                throw TrackerError(saying: "{file} in the zip file is encrypted: unzip it with its password first, then import the files",
                                   ["file": name])
            }
            guard local + 30 <= bytes.count, u32(local) == 0x0403_4B50 else {
                throw TrackerError(saying: "{file} in the zip file is damaged", ["file": name])
            }
            let start = local + 30 + u16(local + 26) + u16(local + 28)
            guard start <= bytes.count, compressed <= bytes.count - start else {
                throw TrackerError(saying: "{file} in the zip file is cut short", ["file": name])
            }
            let limit = InflationLimit(total: Self.largestTotal)
            let room = limit.room(inflated: total, consumed: bytes.count)
            guard size <= room, compressed <= room else {
                throw room < Self.largestTotal - total
                    ? TrackerError(saying: "the zip file unpacks to more than {ratio} times its size, as no export does",
                                   ["ratio": String(limit.ratio)])
                    : TrackerError(saying: "the zip file unpacks to more than {size} MB", ["size": String(Self.largestTotal >> 20)])
            }
            let data = bytes[start..<(start + compressed)]
            let unpacked: [UInt8]
            switch method {
            case 0: unpacked = Array(data)
            case 8: unpacked = try inflate(data, name: name, size: size)
            default: throw TrackerError(saying: "{file} in the zip file is packed in a way tvguide does not read (method {method}): unzip it first",
                                        ["file": name, "method": String(method)])
            }
            guard unpacked.count == size else { throw TrackerError(saying: "{file} in the zip file is damaged", ["file": name]) }
            total += unpacked.count
            files.append((name, unpacked))
        }
        return files
    }

    /// Raw deflate, into exactly `size` bytes: a member that holds more is damaged, found at the first byte past it.
    private static func inflate(_ data: ArraySlice<UInt8>, name: String, size: Int) throws(TrackerError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw TrackerError(saying: "{file}: cannot start unpacking", ["file": name])
        }
        defer { inflateEnd(&stream) }
        // One byte more than it says, to find a member that holds more.
        var output = [UInt8](repeating: 0, count: size + 1)
        let status = data.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                var status = Z_OK
                while status == Z_OK, stream.avail_out > 0, stream.avail_in > 0 {
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                return status
            }
        }
        let made = output.count - Int(stream.avail_out)
        guard status == Z_STREAM_END, made == size else { throw TrackerError(saying: "{file} in the zip file is damaged", ["file": name]) }
        output.removeLast()
        return output
    }
}
