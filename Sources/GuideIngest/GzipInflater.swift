import CZlib

/// Streaming gzip decompression (zlib), for feeds that arrive compressed whatever their name says.
/// Handles concatenated gzip members, as `cat a.gz b.gz` produces.
final class GzipInflater {
    private var stream = z_stream()
    private var isOpen = false
    private var output = [UInt8](repeating: 0, count: 256 * 1024)

    init() throws {
        try open()
    }

    deinit {
        if isOpen { inflateEnd(&stream) }
    }

    private func open() throws {
        // 16 + MAX_WBITS: expect a gzip header.
        let status = inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw IngestError(.decompression, "cannot start gzip decompression (zlib \(status))") }
        isOpen = true
    }

    /// Inflates `input`, handing each piece of output to `body`.
    func inflate(_ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        while stream.avail_in > 0 {
            if !isOpen {
                try open()
            }
            let status: Int32 = output.withUnsafeMutableBytes { out in
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = output.count - Int(stream.avail_out)
            if produced > 0 {
                try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if status == Z_BUF_ERROR && stream.avail_in > 0 && produced == 0 {
                    throw IngestError(.decompression, "the gzip data is corrupt")
                }
            case Z_STREAM_END:
                // Another member may follow; reset and keep going with what is left.
                let nextIn = stream.next_in, availIn = stream.avail_in
                inflateEnd(&stream)
                isOpen = false
                stream = z_stream()
                stream.next_in = nextIn
                stream.avail_in = availIn
                if availIn > 0 {
                    try open()
                    stream.next_in = nextIn
                    stream.avail_in = availIn
                }
            default:
                throw IngestError(.decompression, "the gzip data is corrupt (zlib \(status)\(stream.msg.map { ": " + String(cString: $0) } ?? ""))")
            }
        }
    }

    /// Checks the stream ended where the gzip data said it would.
    func finish() throws {
        if isOpen && stream.total_in > 0 {
            throw IngestError(.truncated, "the gzip data ends early: the download or file is incomplete")
        }
    }
}
