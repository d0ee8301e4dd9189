import CZlib
import GuideCore

/// Streaming gzip decompression (zlib), for feeds that arrive compressed whatever their name says, and for answers
/// sent with `Content-Encoding: gzip` or `deflate` (``HTTPReply/body(upTo:)``). Handles concatenated gzip members, as
/// `cat a.gz b.gz` produces.
public final class GzipInflater {
    /// Why the data could not be inflated: corrupt, or cut short.
    public struct Failure: Error, CustomStringConvertible {
        public enum Kind: Sendable { case corrupt, truncated, tooLarge }
        public var kind: Kind
        public var description: String
    }

    private var stream = z_stream()
    private var isOpen = false
    private var output = [UInt8](repeating: 0, count: 256 * 1024)
    /// zlib's window bits: 16 + 15 for gzip only; 32 + 15 for gzip or zlib (HTTP's deflate), told by the header.
    private let windowBits: Int32
    /// How far it may inflate, counted as it goes.
    private let limit: InflationLimit
    private var inflated = 0
    private var consumed = 0

    /// - Parameters:
    ///   - eitherHeader: accept a zlib header as well as gzip's (HTTP's `deflate`).
    ///   - limit: past it (its total, or its ratio to the bytes given so far), ``inflate(_:_:)`` throws ``Failure``
    ///     of kind `tooLarge`, having made at most one byte more.
    public init(eitherHeader: Bool = false, limit: InflationLimit) throws {
        windowBits = (eitherHeader ? 32 : 16) + MAX_WBITS
        self.limit = limit
        try open()
    }

    deinit {
        if isOpen { inflateEnd(&stream) }
    }

    private func open() throws {
        // 16 + MAX_WBITS: expect a gzip header.
        let status = inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Failure(kind: .corrupt, description: "cannot start gzip decompression (zlib \(status))") }
        isOpen = true
    }

    /// Inflates `input`, handing each piece of output to `body`.
    public func inflate(_ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        defer { consumed += input.count - Int(stream.avail_in) }
        while stream.avail_in > 0 {
            if !isOpen {
                try open()
            }
            let room = limit.room(inflated: inflated, consumed: consumed + input.count - Int(stream.avail_in))
            let space = min(output.count, room + 1)
            let status: Int32 = output.withUnsafeMutableBytes { out in
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(space)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = space - Int(stream.avail_out)
            guard produced <= room else {
                throw Failure(kind: .tooLarge, description: "the compressed data inflates past \(limit.total) bytes or \(limit.ratio) times its size")
            }
            inflated += produced
            if produced > 0 {
                try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if status == Z_BUF_ERROR && stream.avail_in > 0 && produced == 0 {
                    throw Failure(kind: .corrupt, description: "the gzip data is corrupt")
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
                throw Failure(kind: .corrupt, description: "the gzip data is corrupt (zlib \(status)\(stream.msg.map { ": " + String(cString: $0) } ?? ""))")
            }
        }
    }

    /// Checks the stream ended where the gzip data said it would.
    public func finish() throws {
        if isOpen && stream.total_in > 0 {
            throw Failure(kind: .truncated, description: "the gzip data ends early: the download or file is incomplete")
        }
    }
}
