import Foundation
import GuideHTTP
import GuideCore
import TVMaze
import XMLTV

/// Picks the reader for a feed from its first bytes (`<` means XMLTV, `[` a TVmaze schedule, `#EXTM3U` or `#EXTINF`
/// an M3U playlist, anything else the Radio Times format) and feeds it, so the caller never trusts a file name or a
/// Content-Type. A playlist's entries come out as channels (its programmes: none), and only when `playlists` says
/// so (a refresh surveying what a source offers); an import of listings refuses one.
struct ListingDecoder {
    private enum State {
        case undecided([UInt8])
        case xmltv(XMLTVReader)
        case radioTimes(RadioTimesReader)
        case tvmaze(TVMazeScheduleReader)
        case playlist(M3UReader)
    }

    private var state: State = .undecided([])
    /// The channel a Radio Times file describes; that format does not name its channel.
    let radioTimesChannel: Channel
    /// When set, the feed's times are wall-clock times in this zone whatever offset they state.
    let localZone: TimeZone?

    /// Whether an M3U playlist is read (as channels) rather than refused.
    let playlists: Bool
    /// What the taker remembers of the XMLTV programmes handed on (``XMLTVReader/contents``).
    let contents: (any ProgrammeContents)?

    init(radioTimesChannel: Channel, localZone: TimeZone? = nil, playlists: Bool = false,
         contents: (any ProgrammeContents)? = nil) {
        self.radioTimesChannel = radioTimesChannel
        self.localZone = localZone
        self.playlists = playlists
        self.contents = contents
    }

    var issues: IssueLog {
        switch state {
        case .undecided: IssueLog()
        case .xmltv(let reader): reader.issues
        case .radioTimes(let reader): reader.issues
        case .tvmaze(let reader): reader.issues
        case .playlist: IssueLog()
        }
    }

    /// The next byte fed is on line `line` of the file (``XMLTVReader/continueAt(line:)``); XMLTV only.
    mutating func continueAt(line: Int) {
        guard case .xmltv(var reader) = state else { return }
        state = .undecided([])
        reader.continueAt(line: line)
        state = .xmltv(reader)
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (XMLTVItem) throws -> Void) throws {
        switch state {
        case .undecided(var head):
            head.append(contentsOf: chunk)
            guard let first = Self.firstMeaningfulByte(head) else {
                state = .undecided(head)
                return
            }
            if first == UInt8(ascii: "<") {
                var reader = XMLTVReader()
                reader.localZone = localZone
                reader.contents = contents
                try reader.feed(head, emit)
                state = .xmltv(reader)
            } else if first == UInt8(ascii: "[") {
                var reader = TVMazeScheduleReader(localZone: localZone)
                try Self.tvmaze { try reader.feed(head) }
                state = .tvmaze(reader)
            } else if first == UInt8(ascii: "#"), let isPlaylist = Self.isPlaylist(head) {
                guard isPlaylist else { return try radioTimes(head, emit) }
                guard playlists else { throw Self.playlistRefused }
                var reader = M3UReader()
                try reader.read(head) { try emit(.channel(Self.channel($0))) }
                state = .playlist(reader)
            } else if first == UInt8(ascii: "#") {
                state = .undecided(head)   // Too few bytes yet to tell a playlist from Radio Times.
            } else {
                var reader = localZone.map { RadioTimesReader(channel: radioTimesChannel, zone: $0) }
                    ?? RadioTimesReader(channel: radioTimesChannel)
                try reader.feed(head, emit)
                state = .radioTimes(reader)
            }
        case .xmltv(var reader):
            state = .undecided([])
            defer { state = .xmltv(reader) }
            try reader.feed(chunk, emit)
        case .radioTimes(var reader):
            state = .undecided([])
            defer { state = .radioTimes(reader) }
            try reader.feed(chunk, emit)
        case .tvmaze(var reader):
            state = .undecided([])
            defer { state = .tvmaze(reader) }
            try Self.tvmaze { try reader.feed(chunk) }
        case .playlist(var reader):
            state = .undecided([])
            defer { state = .playlist(reader) }
            try reader.read(chunk) { try emit(.channel(Self.channel($0))) }
        }
    }

    private mutating func radioTimes(_ head: [UInt8], _ emit: (XMLTVItem) throws -> Void) throws {
        var reader = localZone.map { RadioTimesReader(channel: radioTimesChannel, zone: $0) }
            ?? RadioTimesReader(channel: radioTimesChannel)
        try reader.feed(head, emit)
        state = .radioTimes(reader)
    }

    static let playlistRefused = IngestError(.unknownFormat, saying: "this is an M3U playlist: it lists channels, not programmes; add it as a source of its own (tvguide sources add NAME URL --format m3u)")

    /// Whether `head` (starting, after a BOM and spaces, with `#`) is a playlist; nil while it is too short to tell.
    static func isPlaylist(_ head: [UInt8]) -> Bool? {
        var start = head.startIndex
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < head.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        let rest = head[start...]
        let tags = ["#EXTM3U", "#EXTINF"].map { Array($0.utf8) }
        if tags.contains(where: { rest.starts(with: $0) }) { return true }
        if tags.contains(where: { $0.starts(with: rest) }) { return nil }
        return false
    }

    /// A playlist's entry as the channel a survey counts: its offered id, title, logo and number.
    static func channel(_ entry: PlaylistEntry) -> Channel {
        Channel(id: entry.offeredID, displayNames: [LocalizedText(entry.name)], icons: entry.logo.map { [Icon(src: $0)] } ?? [],
                number: entry.number)
    }

    mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        switch state {
        case .undecided(let head):
            // A few bytes starting with "#" that never became a playlist: Radio Times' reader judges them.
            guard let first = Self.firstMeaningfulByte(head), first == UInt8(ascii: "#"), Self.isPlaylist(head) != true else {
                throw IngestError(.unknownFormat, saying: "the input is empty: no listings to import")
            }
            try radioTimes(head, emit)
            try finish(emit)
        case .xmltv(var reader):
            try reader.finish(emit)
            state = .xmltv(reader)
        case .radioTimes(var reader):
            try reader.finish(emit)
            state = .radioTimes(reader)
        case .tvmaze(var reader):
            try Self.tvmaze { try reader.finish(emit) }
            state = .tvmaze(reader)
        case .playlist(var reader):
            do {
                try reader.finish { try emit(.channel(Self.channel($0))) }
            } catch let failure as M3UReader.Failure {
                throw IngestError(.unknownFormat, .verbatim(failure.description))
            }
            state = .playlist(reader)
        }
    }

    /// A TVmaze schedule that cannot be read is a feed of an unknown format, as for the other readers.
    private static func tvmaze(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as TVMazeScheduleReader.Unreadable {
            throw IngestError(.unknownFormat, .verbatim(error.description))
        }
    }

    /// Skips a UTF-8 BOM and whitespace; the Radio Times preamble starts with a tab line, which this also skips.
    static func firstMeaningfulByte(_ bytes: [UInt8]) -> UInt8? {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0xFE || byte == 0xFF { return byte }
            if byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { return byte }
            index += 1
        }
        return nil
    }
}

/// A feed's raw bytes in, listings out: unpacks gzip (known by its first two bytes, whatever the name says) and
/// hands the rest to a ``ListingDecoder``.
struct ListingStreamDecoder {
    private var decoder: ListingDecoder
    private var inflater: GzipInflater?
    private var isFirst = true

    init(radioTimesChannel: Channel, localZone: TimeZone? = nil, playlists: Bool = false,
         contents: (any ProgrammeContents)? = nil) {
        decoder = ListingDecoder(radioTimesChannel: radioTimesChannel, localZone: localZone, playlists: playlists,
                                 contents: contents)
    }

    var issues: IssueLog { decoder.issues }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (XMLTVItem) throws -> Void) throws {
        guard !chunk.isEmpty else { return }
        do {
            if isFirst {
                isFirst = false
                if chunk.count >= 2, chunk[0] == 0x1F, chunk[1] == 0x8B { inflater = try GzipInflater(limit: IngestError.inflation) }
            }
            if let inflater {
                try inflater.inflate(chunk) { try decoder.feed($0, emit) }
            } else {
                try decoder.feed(chunk, emit)
            }
        } catch let failure as GzipInflater.Failure {
            throw IngestError(failure)
        }
    }

    mutating func continueAt(line: Int) {
        decoder.continueAt(line: line)
    }

    mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        do {
            try inflater?.finish()
        } catch let failure as GzipInflater.Failure {
            throw IngestError(failure)
        }
        try decoder.finish(emit)
    }
}
