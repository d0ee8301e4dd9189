import Foundation
import GuideCore

/// A compact binary form of the parts of a programme or channel that have no column of their own.
///
/// JSON would be simpler to read in the database shell, but encoding it dominated import time and decoding it
/// dominated now/next; this form costs about a microsecond each way. The first byte is a version so old rows stay
/// readable when fields are added.
///
/// Version 2 leaves the descriptions out: they are kept once for every programme that has them, with the programme's
/// body (``descriptions(_:)``), and handed to ``decode(_:descriptions:channel:start:stop:detail:)``. They were two
/// thirds of every row (301 bytes of details on average at 1.75 M programmes, of 63,000 distinct bodies). Version 1,
/// with them inline, is still written for a programme whose texts fold to nothing (it has no body), and still read.
package enum DetailsCodec {
    static let inline: UInt8 = 1
    static let apart: UInt8 = 2

    /// The details of `programme`, its descriptions inline (version 1) or kept apart (version 2).
    static func encode(_ programme: Programme, descriptionsApart: Bool = false) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(descriptionsApart ? apart : inline)
        writer.texts(programme.titles)
        writer.texts(programme.subTitles)
        if !descriptionsApart { writer.texts(programme.descriptions) }
        writer.count(programme.credits.count)
        for credit in programme.credits {
            writer.string(credit.role.rawValue)
            writer.string(credit.name)
            writer.optional(credit.character)
            writer.byte(credit.isGuest ? 1 : 0)
            writer.strings(credit.images)
            writer.strings(credit.urls)
        }
        writer.optional(programme.date)
        writer.texts(programme.categories)
        writer.texts(programme.keywords)
        writer.optionalText(programme.language)
        writer.optionalText(programme.originalLanguage)
        writer.optionalInt(programme.length)
        writer.icons(programme.icons)
        writer.strings(programme.urls)
        writer.texts(programme.countries)
        writer.count(programme.episodeNumbers.count)
        for number in programme.episodeNumbers {
            writer.string(number.system)
            writer.string(number.value)
        }
        writer.byte(programme.video == nil ? 0 : 1)
        if let video = programme.video {
            writer.optionalBool(video.isPresent)
            writer.optionalBool(video.isColour)
            writer.optional(video.aspect)
            writer.optional(video.quality)
        }
        writer.byte(programme.audio == nil ? 0 : 1)
        if let audio = programme.audio {
            writer.optionalBool(audio.isPresent)
            writer.optional(audio.stereo)
        }
        writeFlags(of: programme, to: &writer)
        writer.count(programme.subtitles.count)
        for subtitles in programme.subtitles {
            writer.optional(subtitles.type)
            writer.optionalText(subtitles.language)
        }
        writer.ratings(programme.ratings)
        writer.ratings(programme.starRatings)
        writer.optional(programme.clumpIndex)
        return writer.bytes
    }

    /// The descriptions kept apart from version 2's details: none when there are none.
    static func descriptions(_ descriptions: [LocalizedText]) -> [UInt8] {
        guard !descriptions.isEmpty else { return [] }
        var writer = BinaryWriter()
        writer.texts(descriptions)
        return writer.bytes
    }

    /// Rebuilds a programme from its columns and details, with `detail`'s fields; nil when the details are unreadable.
    /// `descriptions` are those kept apart (``descriptions(_:)``) for version 2's details; a summary needs none.
    package static func decode(_ bytes: UnsafeRawBufferPointer, descriptions: UnsafeRawBufferPointer? = nil,
                               channel: ChannelID, start: Date, stop: Date?, detail: ProgrammeDetail = .full) -> Programme? {
        var reader = BinaryReader(bytes: bytes)
        let version = reader.byte()
        guard version == inline || version == apart else { return nil }
        var programme = Programme(channel: channel, start: start, stop: stop, titles: reader.texts())
        programme.subTitles = reader.texts()
        if detail == .summary { return summary(of: &programme, from: &reader, version: version) }
        if version == inline {
            programme.descriptions = reader.texts()
        } else if let descriptions, descriptions.count > 0 {
            var apart = BinaryReader(bytes: descriptions)
            programme.descriptions = apart.texts()
            guard apart.isValid else { return nil }
        }
        for _ in 0..<reader.items() {
            let role = Credit.Role(rawValue: reader.string()) ?? .actor
            programme.credits.append(Credit(role: role, name: reader.string(), character: reader.optional(),
                                            isGuest: reader.byte() == 1, images: reader.strings(), urls: reader.strings()))
        }
        programme.date = reader.optional()
        programme.categories = reader.texts()
        programme.keywords = reader.texts()
        programme.language = reader.optionalText()
        programme.originalLanguage = reader.optionalText()
        programme.length = reader.optionalInt()
        programme.icons = reader.icons()
        programme.urls = reader.strings()
        programme.countries = reader.texts()
        programme.episodeNumbers = reader.episodeNumbers()
        if reader.byte() == 1 {
            programme.video = Video(isPresent: reader.optionalBool(), isColour: reader.optionalBool(),
                                    aspect: reader.optional(), quality: reader.optional())
        }
        if reader.byte() == 1 {
            programme.audio = Audio(isPresent: reader.optionalBool(), stereo: reader.optional())
        }
        readFlags(into: &programme, from: &reader)
        for _ in 0..<reader.items() {
            programme.subtitles.append(Subtitles(type: reader.optional(), language: reader.optionalText()))
        }
        programme.ratings = reader.ratings()
        programme.starRatings = reader.ratings()
        programme.clumpIndex = reader.optional()
        return reader.isValid ? programme : nil
    }

    /// The rest of a ``ProgrammeDetail/summary``: walks past what it leaves out without making strings of it.
    private static func summary(of programme: inout Programme, from reader: inout BinaryReader,
                                version: UInt8) -> Programme? {
        if version == inline { reader.skipTexts() }     // descriptions
        for _ in 0..<reader.items() {                   // credits
            reader.skipString(); reader.skipString(); reader.skipOptional()
            _ = reader.byte()
            reader.skipStrings(); reader.skipStrings()
        }
        reader.skipOptional()                           // date
        programme.categories = reader.texts()
        reader.skipTexts()                              // keywords
        reader.skipOptionalText(); reader.skipOptionalText()  // languages
        _ = reader.optionalInt()                        // length
        for _ in 0..<reader.items() {                   // icons
            reader.skipString(); _ = reader.optionalInt(); _ = reader.optionalInt()
        }
        reader.skipStrings()                            // urls
        reader.skipTexts()                              // countries
        programme.episodeNumbers = reader.episodeNumbers()
        if reader.byte() == 1 {                         // video
            _ = reader.optionalBool(); _ = reader.optionalBool(); reader.skipOptional(); reader.skipOptional()
        }
        if reader.byte() == 1 {                         // audio
            _ = reader.optionalBool(); reader.skipOptional()
        }
        readFlags(into: &programme, from: &reader)
        return reader.isValid ? programme : nil
    }

    /// Repeat, premiere, last chance and new: written together, read by both decodings.
    private static func writeFlags(of programme: Programme, to writer: inout BinaryWriter) {
        writer.byte(programme.previouslyShown == nil ? 0 : 1)
        if let shown = programme.previouslyShown {
            writer.optional(shown.start)
            writer.optional(shown.channel)
        }
        writer.optionalText(programme.premiere)
        writer.optionalText(programme.lastChance)
        writer.byte(programme.isNew ? 1 : 0)
    }


    private static func readFlags(into programme: inout Programme, from reader: inout BinaryReader) {
        if reader.byte() == 1 {
            programme.previouslyShown = PreviouslyShown(start: reader.optional(), channel: reader.optional())
        }
        programme.premiere = reader.optionalText()
        programme.lastChance = reader.optionalText()
        programme.isNew = reader.byte() == 1
    }

    /// A channel's details: version 1, the only one.
    package static func encode(_ channel: Channel) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(inline)
        writer.texts(channel.displayNames)
        writer.icons(channel.icons)
        writer.strings(channel.urls)
        writer.optional(channel.number)
        return writer.bytes
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, id: ChannelID) -> Channel? {
        var reader = BinaryReader(bytes: bytes)
        guard reader.byte() == inline else { return nil }
        let channel = Channel(id: id, displayNames: reader.texts(), icons: reader.icons(), urls: reader.strings(),
                              number: reader.optional())
        return reader.isValid ? channel : nil
    }
}

/// Appends length-prefixed values to a byte array.
struct BinaryWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(512) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// LEB128, so small counts and lengths take one byte.
    mutating func count(_ value: Int) {
        var remaining = UInt64(max(0, value))
        while remaining >= 0x80 {
            bytes.append(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optional(_ value: String?) {
        byte(value == nil ? 0 : 1)
        if let value { string(value) }
    }

    mutating func optionalInt(_ value: Int?) {
        byte(value == nil ? 0 : 1)
        if let value { count(value) }
    }

    mutating func optionalBool(_ value: Bool?) {
        byte(value.map { $0 ? 2 : 1 } ?? 0)
    }

    mutating func strings(_ values: [String]) {
        count(values.count)
        for value in values { string(value) }
    }

    mutating func texts(_ values: [LocalizedText]) {
        count(values.count)
        for value in values {
            string(value.text)
            optional(value.language)
        }
    }

    mutating func optionalText(_ value: LocalizedText?) {
        byte(value == nil ? 0 : 1)
        if let value {
            string(value.text)
            optional(value.language)
        }
    }

    mutating func icons(_ values: [Icon]) {
        count(values.count)
        for icon in values {
            string(icon.src)
            optionalInt(icon.width)
            optionalInt(icon.height)
        }
    }

    mutating func ratings(_ values: [Rating]) {
        count(values.count)
        for rating in values {
            optional(rating.system)
            string(rating.value)
            icons(rating.icons)
        }
    }
}

/// Reads what ``BinaryWriter`` wrote; on running out of bytes it returns empty values and marks itself invalid
/// rather than trapping, since the bytes come from a file on disk.
struct BinaryReader {
    /// Borrowed: the reader lives only inside the closure that lends the bytes.
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    private(set) var isValid = true

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { isValid = false; return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func count() -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 63 {
            let next = byte()
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { break }
            shift += 7
        }
        guard value <= UInt64(bytes.count) * 8 + 1 << 32 else { isValid = false; return 0 }
        return Int(value)
    }

    mutating func string() -> String {
        let length = count()
        guard length <= bytes.count - offset else { isValid = false; return "" }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }

    mutating func optional() -> String? { byte() == 1 ? string() : nil }

    /// Moves past a string without making one.
    mutating func skipString() {
        let length = count()
        guard length <= bytes.count - offset else { isValid = false; return }
        offset += length
    }

    mutating func skipOptional() { if byte() == 1 { skipString() } }

    mutating func skipStrings() { for _ in 0..<items() { skipString() } }

    mutating func skipTexts() { for _ in 0..<items() { skipString(); skipOptional() } }

    mutating func skipOptionalText() { if byte() == 1 { skipString(); skipOptional() } }

    mutating func optionalInt() -> Int? { byte() == 1 ? count() : nil }

    mutating func optionalBool() -> Bool? {
        switch byte() {
        case 2: true
        case 1: false
        default: nil
        }
    }

    /// Bounds a count by the bytes left, so a corrupt count cannot make a loop run for ever.
    mutating func items() -> Int {
        let value = count()
        guard value <= bytes.count - offset else { isValid = false; return 0 }
        return value
    }

    mutating func strings() -> [String] { (0..<items()).map { _ in string() } }

    mutating func texts() -> [LocalizedText] {
        (0..<items()).map { _ in LocalizedText(string(), language: optional()) }
    }

    mutating func optionalText() -> LocalizedText? {
        byte() == 1 ? LocalizedText(string(), language: optional()) : nil
    }

    mutating func episodeNumbers() -> [EpisodeNumber] {
        (0..<items()).map { _ in EpisodeNumber(system: string(), value: string()) }
    }

    mutating func icons() -> [Icon] {
        (0..<items()).map { _ in Icon(src: string(), width: optionalInt(), height: optionalInt()) }
    }

    mutating func ratings() -> [Rating] {
        (0..<items()).map { _ in Rating(system: optional(), value: string(), icons: icons()) }
    }
}
