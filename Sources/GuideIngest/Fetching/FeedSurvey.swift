import Foundation
import GuideCore
import GuideStore
import NIOCore
import XMLTV

/// What a feed's bytes were: the XXH64 of each 4 MiB block, in order, kept with the feed's validators once they are
/// imported (`source_fetch.content`). Many IPTV providers' servers send neither ETag nor Last-Modified, so every
/// refresh downloads the whole guide again; these say whether it is the same as the one imported, without parsing it.
/// (SHA-256 until v2 of the layout: 1.8 GB/s here, the download's slowest step on a 912 MB guide. What a digest guards
/// is whether to read the feed again; a feed that wanted to be kept as it was could send the same bytes, so a forged
/// collision gains nothing, and a changed block is taken for the same by chance once in 2^64.)
struct ContentDigests {
    static let blockSize = 4 << 20
    /// Names the scheme in what is stored, so that another one later is never compared with this.
    static let scheme = "xxh64/4MiB:"
    /// Hex digits of a block's digest.
    static let digestWidth = 16
    /// The most blocks read back from the store: a feed of 8 GB.
    static let mostBlocks = 2_048

    private(set) var blocks: [String] = []
    private var hasher = XXH64()
    private var inBlock = 0

    /// The stored form: the scheme, then each block's digest in hex, on the first line (a ``ListingLayout`` may follow).
    var text: String { Self.scheme + blocks.joined() }

    /// The blocks of a stored form; none for anything else (another scheme, a damaged value, too many blocks).
    /// What the stored form holds after its first line: the feed's ``ListingLayout`` when it had one.
    static func layout(in stored: String?) -> Substring? {
        guard let stored, let newline = stored.firstIndex(of: "\n") else { return nil }
        return stored[stored.index(after: newline)...]
    }

    static func blocks(of stored: String?) -> [String] {
        guard let stored, stored.hasPrefix(scheme) else { return [] }
        let hex = stored.utf8.prefix { $0 != UInt8(ascii: "\n") }.dropFirst(scheme.utf8.count)
        guard hex.count % digestWidth == 0, hex.count / digestWidth <= mostBlocks,
              hex.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return [] }
        let characters = Array(hex)
        return stride(from: 0, to: characters.count, by: digestWidth).map {
            String(decoding: characters[$0..<($0 + digestWidth)], as: UTF8.self)
        }
    }

    mutating func feed(_ raw: UnsafeRawBufferPointer) {
        var rest = raw[...]
        while !rest.isEmpty {
            let taken = rest.prefix(Self.blockSize - inBlock)
            hasher.update(UnsafeRawBufferPointer(rebasing: taken))
            inBlock += taken.count
            rest = rest.dropFirst(taken.count)
            if inBlock == Self.blockSize { endBlock() }
        }
    }

    /// Ends the last, shorter block.
    mutating func finish() {
        if inBlock > 0 { endBlock() }
    }

    private mutating func endBlock() {
        let digest = String(hasher.finalize(), radix: 16)
        blocks.append(String(repeating: "0", count: Self.digestWidth - digest.count) + digest)
        hasher = XXH64()
        inBlock = 0
    }
}

/// Whether a feed's bytes are, so far, the ones last imported: its ``ContentDigests`` block for block against those
/// stored. While they are, nothing else needs to read them; a feed the same to the end is not imported again.
struct SameBytes {
    private var digests = ContentDigests()
    private let previous: [String]
    private(set) var isSameSoFar: Bool

    /// What to keep with the feed's validators once it is imported.
    var content: String { digests.text }

    init(previous: String?) {
        self.previous = ContentDigests.blocks(of: previous)
        isSameSoFar = !self.previous.isEmpty
    }

    /// Takes the next bytes; whether the feed is still the same so far.
    mutating func feed(_ raw: UnsafeRawBufferPointer) -> Bool {
        digests.feed(raw)
        if isSameSoFar {
            isSameSoFar = digests.blocks.count <= previous.count && digests.blocks.last.map { $0 == previous[digests.blocks.count - 1] } ?? true
        }
        return isSameSoFar
    }

    /// Whether the feed was the same to its last byte.
    mutating func finish() -> Bool {
        digests.finish()
        isSameSoFar = isSameSoFar && digests.blocks == previous
        return isSameSoFar
    }
}

/// Reads a feed as it arrives (a download being written to `path`, or a file), from where it stopped being the bytes
/// last imported (``SameBytes``): its ``ListingLayout`` (a scan, not a parse); and a parse that keeps its channels and
/// counts its programmes only where the scan cannot say (a file that is not plain XMLTV): for a plain one, only its
/// header is parsed, and the import reads the rest. What it was not given (the bytes that were the same) it reads back
/// from `path`.
struct FeedSurvey {
    private var survey: Survey
    private var scanner: ListingLayoutScanner
    private let path: String
    private let location: String
    private let localZone: TimeZone?
    /// How many bytes were scanned and parsed.
    private var scanned: Int64 = 0
    private var parsed: Int64 = 0
    /// The feed's layout, once ``finish(at:)`` found it plain.
    private(set) var layout: ListingLayout?
    /// Writes the file in part (``PartialDownload``), when given every byte as it arrives; nil once the scan refused
    /// the feed, which is then not surveyed further (what was not written cannot be read back): it is downloaded
    /// again whole.
    private var partial: PartialDownload?
    private var isPartial = false
    /// What a partial download wrote (nothing until it finished, and nothing if it was refused); nil for a whole one.
    private(set) var written: WrittenRanges?

    var channels: [OfferedChannel] { survey.channels }
    var programmes: Int { layout?.programmes ?? (scanner.refusal == nil ? scanner.programmes : survey.programmes) }

    init(location: String, localZone: TimeZone?, path: String, partial: PartialDownload? = nil) {
        survey = Survey(location: location, localZone: localZone)
        scanner = ListingLayoutScanner(localZone: localZone)
        self.path = path
        self.location = location
        self.localZone = localZone
        self.partial = partial
        isPartial = partial != nil
        written = partial.map { _ in WrittenRanges() }
    }

    /// The next chunk of a download written in part: every chunk, in order, none written yet.
    mutating func feed(_ buffer: ByteBuffer, at offset: Int64) throws {
        guard isPartial else {
            try buffer.withUnsafeReadableBytes { try feed($0, at: offset) }
            return
        }
        guard var partial else { return }
        self.partial = nil
        buffer.withUnsafeReadableBytes { scanner.feed($0) }
        scanned = offset + Int64(buffer.readableBytes)
        guard scanner.refusal == nil else { return }
        try partial.take(buffer, at: offset, scanner: scanner)
        self.partial = partial
    }

    /// `raw`, the feed's bytes from `offset` on, already in the file at `path`; any before it not given yet are read
    /// back from the file first.
    mutating func feed(_ raw: UnsafeRawBufferPointer, at offset: Int64) throws {
        try catchUp(to: offset)
        try take(raw)
    }

    /// The survey of the feed's `end` bytes, any not given read back from the file.
    mutating func finish(at end: Int64) throws {
        if isPartial {
            // Refused or cut: nothing more to survey; the download is made again whole.
            guard var partial, scanned == end, let layout = scanner.finish() else { return }
            self.partial = nil
            try partial.finish(scanner)
            written = partial.written
            self.layout = layout
            try surveyHeader(of: layout)
            return
        }
        try catchUp(to: end)
        if scanner.refusal == nil, let layout = scanner.finish() {
            self.layout = layout
            try surveyHeader(of: layout)
        } else {
            try catchUp(to: end)
            try survey.finish()
        }
    }

    /// Scans (and, once the scan gave up, parses) `raw`, the bytes after those taken so far.
    private mutating func take(_ raw: UnsafeRawBufferPointer) throws {
        if scanner.refusal == nil {
            scanner.feed(raw)
            scanned += Int64(raw.count)
            guard scanner.refusal != nil else { return }
            try catchUp(to: scanned - Int64(raw.count))
        }
        try survey.feed(raw)
        parsed += Int64(raw.count)
    }

    /// Takes what was skipped, up to `end`, from the file: what the scan skipped while the feed matched, and what the
    /// parse skipped while the scan went on.
    private mutating func catchUp(to end: Int64) throws {
        if scanner.refusal == nil, scanned < end {
            try readBack(from: scanned, to: end) { raw in
                scanner.feed(raw)
                scanned += Int64(raw.count)
            }
        }
        if scanner.refusal != nil, parsed < end {
            try readBack(from: parsed, to: end) { raw in
                try survey.feed(raw)
                parsed += Int64(raw.count)
            }
        }
    }

    /// The channels of a plain file: its header parsed, and the channels only its programmes name, by their ids.
    private mutating func surveyHeader(of layout: ListingLayout) throws {
        survey = Survey(location: location, localZone: localZone)
        try readBack(from: 0, to: layout.headerEnd) { try survey.feed($0) }
        try Array("</tv>".utf8).withUnsafeBytes { try survey.feed($0) }
        try survey.finish()
        survey.offer(layout.runs.map { ChannelID($0.channel) })
    }

    private func readBack(from start: Int64, to end: Int64, _ take: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard start < end else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IngestError(.unreadable, saying: "cannot read {file}: check its permissions", ["file": path])
        }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(start))
        var offset = start
        while offset < end, let chunk = try handle.read(upToCount: Int(min(1 << 20, end - offset))), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try take($0) }
            offset += Int64(chunk.count)
        }
    }
}

extension FeedSurvey {
    /// Parses a feed as it arrives, keeping only its channels and a count of its programmes.
    fileprivate struct Survey {
        var decoder: ListingStreamDecoder
        var tally = Tally()
        var channels: [OfferedChannel] { tally.channels }
        var programmes: Int { tally.programmes }

        init(location: String, localZone: TimeZone?) {
            // A playlist is surveyed too (its entries offered as channels); importing one as listings is refused later.
            decoder = ListingStreamDecoder(radioTimesChannel: ListingImporter.radioTimesChannel(for: location), localZone: localZone,
                                           playlists: true)
        }

        mutating func feed(_ raw: UnsafeRawBufferPointer) throws {
            var tally = self.tally
            defer { self.tally = tally }
            try decoder.feed(raw) { tally.record($0) }
        }

        mutating func finish() throws {
            var tally = self.tally
            defer { self.tally = tally }
            try decoder.finish { tally.record($0) }
        }

        /// Offers channels the programmes name that the header did not describe, by their ids.
        mutating func offer(_ named: [ChannelID]) {
            for id in named { tally.name(id) }
        }
    }

    fileprivate struct Tally {
        var channels: [OfferedChannel] = []
        var places: [ChannelID: Int] = [:]
        var programmes = 0

        mutating func record(_ item: XMLTVItem) {
            switch item {
            case .channel(let channel):
                if let place = places[channel.id] {
                    channels[place].name = channel.name   // described after its programmes named it
                } else {
                    places[channel.id] = channels.count
                    channels.append(OfferedChannel(id: channel.id, name: channel.name))
                }
            case .programme(let programme, _), .remembered(let programme, _, _):
                programmes += 1
                name(programme.channel)
            case .repeated(let repeated):
                programmes += 1
                name(repeated.channel)
            }
        }

        /// A channel only its programmes name is offered by its id.
        mutating func name(_ channel: ChannelID) {
            guard places[channel] == nil else { return }
            places[channel] = channels.count
            channels.append(OfferedChannel(id: channel, name: channel.rawValue))
        }
    }

}
