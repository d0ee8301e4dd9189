import Foundation
import GuideCore

/// Reads the legacy Radio Times feed: one channel per file, one programme per line, 23 fields split by `~`,
/// times in UK local time. Header lines are skipped and CRLF is accepted.
///
/// The field list and rules are in `radiotimes-format.md` (copied into docs/): stop = start + duration, a `(BST) ` or
/// `(GMT) ` title prefix settles the hour that happens twice when the clocks go back.
public struct RadioTimesReader {
    public var issues = IssueLog()
    public let channel: Channel
    private let zone: TimeZone
    private var pending: [UInt8] = []
    private var line = 0
    private var sentChannel = false

    public init(channel: Channel, zone: TimeZone = TimeZone(identifier: "Europe/London") ?? .gmt) {
        self.channel = channel
        self.zone = zone
    }

    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (XMLTVItem) throws -> Void) throws {
        pending.append(contentsOf: chunk)
        var start = 0
        while let newline = pending[start...].firstIndex(of: 0x0A) {
            try readLine(pending[start..<newline], emit)
            start = newline + 1
        }
        pending.removeSubrange(0..<start)
        if pending.count > 1 << 20 {
            throw XMLTVError(.tooLarge, saying: "a line of over 1 MB: this is not a Radio Times feed", line: line + 1)
        }
    }

    public mutating func feed(_ bytes: [UInt8], _ emit: (XMLTVItem) throws -> Void) throws {
        try bytes.withUnsafeBytes { try feed($0, emit) }
    }

    public mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        if !pending.isEmpty { try readLine(pending[...], emit) }
        pending.removeAll()
        if !sentChannel {
            throw XMLTVError(.notXMLTV, saying: "no programme lines: this is not a Radio Times feed")
        }
    }

    private mutating func readLine(_ bytes: ArraySlice<UInt8>, _ emit: (XMLTVItem) throws -> Void) throws {
        line += 1
        var invalid = 0
        var text = bytes.withUnsafeBytes { XMLText.decode($0, invalid: &invalid) }
        if invalid > 0 {
            issues.record(ListingIssue(kind: .invalidEncoding, line: line, channel: channel.id,
                                       message: Sentence(saying: "bytes that are not UTF-8 (or NUL) were replaced with U+FFFD")))
        }
        if text.hasSuffix("\r") { text.removeLast() }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("In accessing this XML feed") { return }
        let fields = text.split(separator: "~", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count >= 23 else {
            issues.record(ListingIssue(kind: .skipped, line: line, channel: channel.id,
                                       message: Sentence(saying: "a line with {count} field, not 23, was skipped",
                                                         plural: "a line with {count} fields, not 23, was skipped", count: fields.count)))
            return
        }
        if !sentChannel {
            try emit(.channel(channel))
            sentChannel = true
        }
        if let programme = programme(fields) {
            try emit(.programme(programme, line: line))
        }
    }

    private mutating func programme(_ fields: [String]) -> Programme? {
        var title = fields[0]
        var preference = ZonedTime.Preference.earlier
        if title.hasPrefix("(BST) ") {
            title.removeFirst(6)
        } else if title.hasPrefix("(GMT) ") {
            title.removeFirst(6)
            preference = .later
        }
        while title.hasSuffix("|") || title.hasSuffix(":") { title.removeLast() }
        guard !title.isEmpty, let local = Self.localSeconds(date: fields[19], time: fields[20]),
              let minutes = Bounded.integer(fields[22], in: Programme.lengthMinutesRange) else {
            issues.record(ListingIssue(kind: .skipped, line: line, channel: channel.id, title: title.isEmpty ? nil : title,
                                       message: Sentence(saying: "a programme without a readable title, date (DD/MM/YYYY), start (HH:MM) or duration (whole minutes from {lowest} to {highest}) was skipped",
                                                         ["lowest": "\(Programme.lengthMinutesRange.lowerBound)",
                                                          "highest": "\(Programme.lengthMinutesRange.upperBound)"])))
            return nil
        }
        let start = ZonedTime.utc(localSeconds: local, in: zone, prefer: preference)
        var programme = Programme(channel: channel.id, start: Date(unixSeconds: start),
                                  stop: Date(unixSeconds: start + Int64(minutes) * 60),
                                  titles: [LocalizedText(title)])
        let flags = (6...13).map { flag(fields[$0], name: Self.flagNames[$0 - 6]) }
        let isFilm = flags[1]
        var episodeTitle = fields[2]
        if let range = episodeTitle.range(of: #"Prod Year \d{4}"#, options: .regularExpression) {
            if fields[3].isEmpty { programme.date = String(episodeTitle[range].suffix(4)) }
            episodeTitle.removeSubrange(range)
            episodeTitle = episodeTitle.trimmingCharacters(in: .whitespaces)
        }
        let numbering = RadioTimesNumbering(fields[1])
        if let number = numbering.xmltvNS {
            programme.episodeNumbers.append(EpisodeNumber(system: "xmltv_ns", value: number.xmltvValue))
        }
        if !numbering.leftover.isEmpty {
            episodeTitle = episodeTitle.isEmpty ? numbering.leftover : "\(numbering.leftover): \(episodeTitle)"
        }
        if !episodeTitle.isEmpty { programme.subTitles = [LocalizedText(episodeTitle)] }
        if fields[3].count == 4, Bounded.integer(fields[3], in: 0...9999) != nil { programme.date = fields[3] }
        if !fields[4].isEmpty {
            programme.credits += fields[4].split(separator: ",").map {
                Credit(role: .director, name: $0.trimmingCharacters(in: .whitespaces))
            }
        }
        programme.credits += Self.cast(fields[5])
        if flags[0] { programme.premiere = LocalizedText("") }
        if flags[2] { programme.previouslyShown = PreviouslyShown() }
        if flags[3] { programme.subtitles.append(Subtitles(type: "teletext")) }
        if flags[4] || flags[7] {
            programme.video = Video(isColour: flags[7] ? false : nil, aspect: flags[4] ? "16:9" : nil)
        }
        if flags[5] { programme.isNew = true }
        if flags[6] { programme.subtitles.append(Subtitles(type: "deaf-signed")) }
        if isFilm, let stars = Bounded.integer(fields[14], in: 0...5) {
            programme.starRatings.append(Rating(system: "Radio Times Film Rating", value: "\(stars)/5"))
        }
        if !fields[15].isEmpty { programme.ratings.append(Rating(system: "BBFC", value: fields[15])) }
        if isFilm {
            programme.categories.append(LocalizedText("Film", language: "en"))
        } else if !fields[16].isEmpty, fields[16] != "No Genre" {
            programme.categories.append(LocalizedText(fields[16], language: "en"))
        }
        if !fields[17].isEmpty { programme.descriptions = [LocalizedText(fields[17])] }
        if flag(fields[18], name: "choice") {
            programme.starRatings.append(Rating(system: "Radio Times Recommendation", value: "1/1"))
        }
        return programme
    }

    static let flagNames = ["premiere", "film", "repeat", "subtitles", "widescreen", "new_series", "deaf_signed",
                            "black_and_white"]

    private mutating func flag(_ value: String, name: String) -> Bool {
        switch value.lowercased() {
        case "true": return true
        case "false", "", "null": return false
        default:
            issues.record(ListingIssue(kind: .invalidValue, line: line, channel: channel.id,
                                       message: Sentence(saying: "field {name} is \"{value}\", not true or false; read as false",
                                                         ["name": name, "value": value])))
            return false
        }
    }

    /// `Character*Actor|Character*Actor` or a comma-separated list of actors.
    static func cast(_ field: String) -> [Credit] {
        guard !field.isEmpty else { return [] }
        if field.contains("*") {
            return field.split(separator: "|").compactMap { entry in
                let parts = entry.split(separator: "*", maxSplits: 1, omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard let name = parts.last, !name.isEmpty else { return nil }
                let character = parts.count == 2 && !parts[0].isEmpty ? parts[0] : nil
                if character == "Director" { return Credit(role: .director, name: name) }
                if character == "Presenter" { return Credit(role: .presenter, name: name) }
                return Credit(role: .actor, name: name, character: character)
            }
        }
        return field.split(separator: ",").map { Credit(role: .actor, name: $0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.name.isEmpty }
    }

    /// `DD/MM/YYYY` and `HH:MM` as seconds, counting the local time as if it were UTC.
    static func localSeconds(date: String, time: String) -> Int64? {
        let d = date.split(separator: "/"), t = time.split(separator: ":")
        guard d.count == 3, t.count == 2, let year = Bounded.integer(d[2], in: 1...9999),
              let month = Bounded.integer(d[1], in: 1...12),
              let day = Bounded.integer(d[0], in: 1...CivilTime.daysIn(month: month, year: year)),
              let hour = Bounded.integer(t[0], in: 0...23), let minute = Bounded.integer(t[1], in: 0...59) else { return nil }
        return Int64(CivilTime.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60)
    }
}
