import Foundation
import GuideCore
import TVMaze
import XMLTV

/// Picks the reader for a feed from its first bytes (`<` means XMLTV, `[` a TVmaze schedule, anything else the
/// Radio Times format) and feeds it, so the caller never trusts a file name or a Content-Type.
struct ListingDecoder {
    private enum State {
        case undecided([UInt8])
        case xmltv(XMLTVReader)
        case radioTimes(RadioTimesReader)
        case tvmaze(TVMazeScheduleReader)
    }

    private var state: State = .undecided([])
    /// The channel a Radio Times file describes; that format does not name its channel.
    let radioTimesChannel: Channel
    /// When set, the feed's times are wall-clock times in this zone whatever offset they state.
    let localZone: TimeZone?

    init(radioTimesChannel: Channel, localZone: TimeZone? = nil) {
        self.radioTimesChannel = radioTimesChannel
        self.localZone = localZone
    }

    var issues: IssueLog {
        switch state {
        case .undecided: IssueLog()
        case .xmltv(let reader): reader.issues
        case .radioTimes(let reader): reader.issues
        case .tvmaze(let reader): reader.issues
        }
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
                try reader.feed(head, emit)
                state = .xmltv(reader)
            } else if first == UInt8(ascii: "[") {
                var reader = TVMazeScheduleReader(localZone: localZone)
                try Self.tvmaze { try reader.feed(head) }
                state = .tvmaze(reader)
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
        }
    }

    mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        switch state {
        case .undecided:
            throw IngestError(.unknownFormat, "the input is empty: no listings to import")
        case .xmltv(var reader):
            try reader.finish(emit)
            state = .xmltv(reader)
        case .radioTimes(var reader):
            try reader.finish(emit)
            state = .radioTimes(reader)
        case .tvmaze(var reader):
            try Self.tvmaze { try reader.finish(emit) }
            state = .tvmaze(reader)
        }
    }

    /// A TVmaze schedule that cannot be read is a feed of an unknown format, as for the other readers.
    private static func tvmaze(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as TVMazeScheduleReader.Unreadable {
            throw IngestError(.unknownFormat, error.description)
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

    init(radioTimesChannel: Channel, localZone: TimeZone? = nil) {
        decoder = ListingDecoder(radioTimesChannel: radioTimesChannel, localZone: localZone)
    }

    var issues: IssueLog { decoder.issues }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (XMLTVItem) throws -> Void) throws {
        guard !chunk.isEmpty else { return }
        if isFirst {
            isFirst = false
            if chunk.count >= 2, chunk[0] == 0x1F, chunk[1] == 0x8B { inflater = try GzipInflater() }
        }
        if let inflater {
            try inflater.inflate(chunk) { try decoder.feed($0, emit) }
        } else {
            try decoder.feed(chunk, emit)
        }
    }

    mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        try inflater?.finish()
        try decoder.finish(emit)
    }
}
