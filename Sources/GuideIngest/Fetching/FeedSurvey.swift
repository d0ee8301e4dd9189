import Crypto
import Foundation
import GuideCore
import GuideStore
import XMLTV

/// What a feed's bytes were: the SHA-256 of each 4 MiB block, in order, kept with the feed's validators once they are
/// imported (`source_fetch.content`). Many IPTV providers' servers send neither ETag nor Last-Modified, so every
/// refresh downloads the whole guide again; these say whether it is the same as the one imported, without parsing it.
struct ContentDigests {
    static let blockSize = 4 << 20
    /// Names the scheme in what is stored, so that another one later is never compared with this.
    static let scheme = "sha256/4MiB:"
    /// The most blocks read back from the store: a feed of 8 GB.
    static let mostBlocks = 2_048

    private(set) var blocks: [String] = []
    private var hasher = SHA256()
    private var inBlock = 0

    /// The stored form: the scheme, then each block's digest in hex.
    var text: String { Self.scheme + blocks.joined() }

    /// The blocks of a stored form; none for anything else (another scheme, a damaged value, too many blocks).
    static func blocks(of stored: String?) -> [String] {
        guard let stored, stored.hasPrefix(scheme) else { return [] }
        let hex = stored.utf8.dropFirst(scheme.utf8.count)
        guard hex.count % 64 == 0, hex.count / 64 <= mostBlocks,
              hex.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return [] }
        let characters = Array(hex)
        return stride(from: 0, to: characters.count, by: 64).map { String(decoding: characters[$0..<($0 + 64)], as: UTF8.self) }
    }

    mutating func feed(_ raw: UnsafeRawBufferPointer) {
        var rest = raw[...]
        while !rest.isEmpty {
            let taken = rest.prefix(Self.blockSize - inBlock)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: taken))
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
        blocks.append(hasher.finalize().map { String(format: "%02x", $0) }.joined())
        hasher = SHA256()
        inBlock = 0
    }
}

/// Reads a feed as it arrives (a download being written to `path`, or a file): its content digests always, and, once
/// it differs from the feed last imported, a parse that keeps its channels and counts its programmes. While it is
/// the same block for block, the parse waits; at the first block that differs it reads back what it skipped from
/// `path`. A feed the same to the end is never parsed: ``finish()`` says so.
struct FeedSurvey {
    private var survey: Survey
    private var digests = ContentDigests()
    private let previous: [String]
    private let path: String
    /// Bytes read so far, and how many of them were parsed.
    private var bytes: Int64 = 0
    private var parsed: Int64 = 0
    private var isSameSoFar: Bool

    var channels: [OfferedChannel] { survey.channels }
    var programmes: Int { survey.programmes }
    /// What to keep with the feed's validators once it is imported.
    var content: String { digests.text }

    init(location: String, localZone: TimeZone?, previous: String?, path: String) {
        survey = Survey(location: location, localZone: localZone)
        self.previous = ContentDigests.blocks(of: previous)
        self.path = path
        isSameSoFar = !self.previous.isEmpty
    }

    /// The next bytes, already in the file at `path` when they come from a download.
    mutating func feed(_ raw: UnsafeRawBufferPointer) throws {
        digests.feed(raw)
        bytes += Int64(raw.count)
        if isSameSoFar {
            isSameSoFar = digests.blocks.count <= previous.count && digests.blocks.last.map { $0 == previous[digests.blocks.count - 1] } ?? true
            if isSameSoFar { return }
            try catchUp(to: bytes - Int64(raw.count))
        }
        try survey.feed(raw)
        parsed = bytes
    }

    /// Whether the feed was the same as the one last imported, to the last byte; if not, its parse is finished.
    mutating func finish() throws -> Bool {
        digests.finish()
        if isSameSoFar && digests.blocks == previous { return true }
        isSameSoFar = false
        try catchUp(to: bytes)
        try survey.finish()
        return false
    }

    /// Parses what was skipped while the feed matched, up to `end`, from the file.
    private mutating func catchUp(to end: Int64) throws {
        guard parsed < end else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IngestError(.unreadable, saying: "cannot read {file}: check its permissions", ["file": path])
        }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(parsed))
        while parsed < end, let chunk = try handle.read(upToCount: Int(min(1 << 20, end - parsed))), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try survey.feed($0) }
            parsed += Int64(chunk.count)
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
            case .programme(let programme, _):
                programmes += 1
                // A channel only its programmes name is offered by its id.
                if places[programme.channel] == nil {
                    places[programme.channel] = channels.count
                    channels.append(OfferedChannel(id: programme.channel, name: programme.channel.rawValue))
                }
            }
        }
    }

}
