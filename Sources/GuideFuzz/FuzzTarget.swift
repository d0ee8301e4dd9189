import Foundation
import GuideCore
import GuideWebFormats
import XMLTV

/// What the fuzzer feeds, and the properties that must hold for any input: no crash, no hang, and the same answer
/// whether the bytes arrive whole or in two pieces (an import reads in chunks, so a chunk boundary must never change
/// what is read). A property that fails stops the run with the input saved, which is the point of a fuzz target.
enum FuzzTarget: String, CaseIterable {
    case xmltv, radiotimes, m3u, query

    func run(_ bytes: [UInt8]) {
        switch self {
        case .xmltv: Self.xmltv(bytes)
        case .radiotimes: Self.radioTimes(bytes)
        case .m3u: Self.m3u(bytes)
        case .query: Self.query(bytes)
        }
    }

    /// Where to cut the input in two: decided by its first byte, so the fuzzer explores cuts too.
    private static func cut(_ bytes: [UInt8]) -> Int {
        bytes.isEmpty ? 0 : Int(bytes[0]) * 7 % (bytes.count + 1)
    }

    private static func xmltv(_ bytes: [UInt8]) {
        let whole = try? XMLTVReader.read(bytes)
        var reader = XMLTVReader()
        var channels: [Channel] = [], programmes: [Programme] = []
        let collect: (XMLTVItem) -> Void = {
            switch $0 {
            case .channel(let channel): channels.append(channel)
            case .programme(let programme, _), .remembered(let programme, _, _): programmes.append(programme)
            case .repeated: check(false, "a repeat from a reader without contents")
            }
        }
        let split = cut(bytes)
        let pieces: Void? = try? {
            try reader.feed(Array(bytes[..<split]), collect)
            try reader.feed(Array(bytes[split...]), collect)
            try reader.finish(collect)
        }()
        if let whole {
            check(pieces != nil, "read whole but refused in two pieces cut at \(split)")
            check(whole.programmes == programmes && whole.channels == channels, "two pieces cut at \(split) read differently")
            // An import's reader is given the contents handed on, to read one met again no more: it reads the same.
            var remembering = XMLTVReader()
            let contents = RememberedProgrammes()
            remembering.contents = contents
            programmes = []
            let madeWhole: (XMLTVItem) -> Void = { item in
                if case .channel = item { return }
                let programme = contents.programme(item)
                check(programme != nil, "a repeat of nothing")
                if let programme { programmes.append(programme) }
            }
            let read: Void? = try? {
                try remembering.feed(Array(bytes[..<split]), madeWhole)
                try remembering.feed(Array(bytes[split...]), madeWhole)
                try remembering.finish(madeWhole)
            }()
            check(read != nil && programmes == whole.programmes, "read differently remembering contents")
            check(remembering.issues.counts == whole.issues.counts, "counted other issues remembering contents")
        }
        // Whatever was read holds no NUL (PostgreSQL's text could not store it), and its numbers are in their ranges.
        for programme in whole?.programmes ?? [] {
            check(!programme.title.contains("\u{0}"), "a title kept a NUL")
            numbersInRange(programme)
        }
    }

    /// The numbers a reader keeps are within the ranges the rest of tvguide counts on.
    private static func numbersInRange(_ programme: Programme) {
        check(programme.length.map(Programme.lengthRange.contains) ?? true, "a length of \(programme.length ?? 0) was kept")
        check(Date.guideRange.contains(programme.start.unixSeconds), "a start outside years 1-9999")
        check((programme.stop.map { $0.timeIntervalSince(programme.start) } ?? 0) <= Double(Programme.lengthRange.upperBound) * 400_000,
              "a stop beyond any year")
        for number in programme.episodeNumbers.compactMap(\.xmltvNS) {
            for value in [number.season, number.seasonCount, number.episode, number.episodeCount, number.part, number.partCount] {
                check(value.map { (0...(XMLTVNSNumber.numberRange.upperBound + 1)).contains($0) } ?? true, "an episode number \(value ?? 0)")
            }
        }
        for icon in programme.icons {
            check([icon.width, icon.height].allSatisfy { $0.map(Icon.sizeRange.contains) ?? true }, "an icon size out of range")
        }
    }

    private static func radioTimes(_ bytes: [UInt8]) {
        func read(_ pieces: [[UInt8]]) -> [Programme]? {
            var reader = RadioTimesReader(channel: Channel(id: ChannelID("fuzz")))
            var programmes: [Programme] = []
            let collect: (XMLTVItem) -> Void = { if case .programme(let programme, _) = $0 { programmes.append(programme) } }
            do {
                for piece in pieces { try reader.feed(piece, collect) }
                try reader.finish(collect)
                return programmes
            } catch {
                return nil
            }
        }
        let split = cut(bytes)
        let whole = read([bytes])
        let pieces = read([Array(bytes[..<split]), Array(bytes[split...])])
        check(whole == pieces, "two pieces cut at \(split) read differently")
        for programme in whole ?? [] {
            numbersInRange(programme)
            check((programme.stop ?? programme.start).timeIntervalSince(programme.start) <= Double(Programme.lengthRange.upperBound),
                  "a Radio Times duration over 31 days")
        }
    }

    /// M3U playlists: the same entries whole and in two pieces, numbers in their ranges, nothing kept from a line
    /// over the reader's limit.
    private static func m3u(_ bytes: [UInt8]) {
        func read(_ pieces: [[UInt8]]) -> [PlaylistEntry]? {
            var reader = M3UReader()
            var entries: [PlaylistEntry] = []
            for piece in pieces { reader.read(piece) { entries.append($0) } }
            return (try? reader.finish { entries.append($0) }) == nil ? nil : entries
        }
        let split = cut(bytes)
        let whole = read([bytes])
        check(whole == read([Array(bytes[..<split]), Array(bytes[split...])]), "two pieces cut at \(split) read differently")
        for entry in whole ?? [] {
            check(entry.shiftHours.map(PlaylistEntry.shiftRange.contains) ?? true, "a tvg-shift of \(entry.shiftHours ?? 0)")
            check(entry.catchup?.days.map(PlaylistEntry.catchupDaysRange.contains) ?? true, "catch-up days out of range")
            check((entry.number?.count ?? 0) <= 16, "a channel number of \(entry.number?.count ?? 0) characters")
            check(!entry.stream.isEmpty && entry.stream.utf8.count <= M3UReader.longestLine, "a stream line of \(entry.stream.utf8.count) bytes")
            _ = PlaylistEntry.matchKey(entry.name)
        }
    }

    /// The query-string, header and form parsers: form fields and their numbers, ISO 8601 instants, HTTP dates and
    /// Retry-After, dates, XMLTV timestamps and episode numbers, search terms and caps, channel lists, source names.
    private static func query(_ bytes: [UInt8]) {
        let fields = FormFields(encoded: String(decoding: bytes, as: UTF8.self))
        for (name, value) in fields.values {
            let number = try? fields.integer(name, in: -2880...2880)
            check(number.map((-2880...2880).contains) ?? true, "an integer outside its range from \(value)")
            let decimal = try? fields.decimal(name, in: 0.08...8784)
            check(decimal.map { $0.isFinite && (0.08...8784).contains($0) } ?? true, "a decimal outside its range")
            check(Bounded.integer(value, in: Int64.min...Int64.max).map { String($0) == value || value.hasPrefix("+") || value.hasPrefix("-0") || value.hasPrefix("0") } ?? true,
                  "\(value) read as another number")
            if let date = HTTPDate.parse(value) {
                check(Date.guideRange.contains(date.unixSeconds), "an HTTP date outside the guide's years")
                check(HTTPDate.parse(HTTPDate.format(date)) == date, "\(value) wrote back as \(HTTPDate.format(date)), which reads differently")
            }
            if let wait = HTTPDate.retryAfter(value, now: Date(timeIntervalSince1970: 1_771_185_600)) {
                check(wait >= .zero && wait <= .seconds(HTTPDate.retryAfterRange.upperBound), "a Retry-After of \(wait)")
            }
            if let date = CivilDate(value) { check(CivilDate(date.description) == date, "\(value) wrote back differently") }
            _ = BroadcastDay(value, zone: TimeZone(identifier: "UTC")!, startHour: 5)
            _ = XMLTVNSNumber(parsing: value)?.xmltvValue
            _ = SearchQuery.problem(withText: value)
            _ = SourceName(location: value).shown
            _ = fields[name]
            _ = fields.all(name)
            if let instant = CivilTime.parseISO8601(value) {
                // What the API writes back for an instant it read must read as the same instant.
                let written = CivilTime.iso8601(instant)
                check(CivilTime.parseISO8601(written) == instant.rounded, "\(value) wrote back as \(written), which reads differently")
            }
            _ = XMLTVTimestamp.date(value)
            let search = SearchQuery(value.split(separator: " ").map(String.init))
            for term in search.terms {
                check(!term.isEmpty, "an empty search term from \(value)")
                check(!term.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a control character in a search term")
            }
            _ = value.split(separator: ",").map { ChannelID(String($0)) }
        }
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        // The fuzz target's report: libFuzzer saves the input that got here.
        preconditionFailure("fuzz property failed: \(message())")
    }
}

extension Date {
    /// To the whole second, as the API writes instants.
    fileprivate var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
