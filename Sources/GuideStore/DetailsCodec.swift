import Foundation
import GuideCore

/// A compact binary form of the parts of a programme or channel that have no column of their own.
///
/// JSON would be simpler to read in the database shell, but encoding it dominated import time and decoding it
/// dominated now/next; this form costs about a microsecond each way. The first byte is a version so old rows stay
/// readable when fields are added.
///
/// A programme with a body (folded sub-titles and descriptions) keeps in its row only what an airing has of its own
/// (version 3); its body keeps what every airing of the episode shares (``shared(_:)``): the descriptions, credits,
/// date, keywords, languages, length, links and countries, handed back to
/// ``decode(_:descriptions:channel:start:stop:detail:)``. Descriptions were two thirds of a row (version 2 kept only
/// them apart); credits and the rest were 41 of the remaining 126 bytes at 1.75 M programmes, 156 of 346 in a real
/// German guide, and bodies grew by 0.2-0.5% for them (icons and episode numbers, which some guides give each airing,
/// stay in the row). Version 1, everything inline, is written for a programme whose texts fold to nothing (it has no
/// body). Versions 1 and 2 are read as they were stored.
package enum DetailsCodec {
    static let inline: UInt8 = 1
    static let apart: UInt8 = 2
    static let shared: UInt8 = 3
    /// The first byte of what a body keeps for version 3: no version 2 body's descriptions begin with it (a count of at
    /// least one; none is no bytes at all), so a body kept for one version is never taken for the other's.
    static let sharedLayout: UInt8 = 0

    /// How a programme's details are laid out: whole, or without what its body keeps.
    enum Layout {
        /// Version 1: everything.
        case inline
        /// Version 2: all but the descriptions. No longer written by an import; tests write it to read it back.
        case descriptionsApart
        /// Version 3: what the airing has of its own (``DetailsCodec/shared(_:)`` is the rest).
        case sharedApart
    }

    /// The details of `programme`, laid out as `layout` says.
    static func encode(_ programme: Programme, layout: Layout = .inline) -> [UInt8] {
        BinaryWriter.bytes { writer in
            if layout == .sharedApart {
                writer.byte(shared)
                writer.texts(programme.titles)
                writer.texts(programme.subTitles)
                // What a summary reads comes first, so that it stops here.
                writer.texts(programme.categories)
                writer.episodeNumbers(programme.episodeNumbers)
                writeFlags(of: programme, to: &writer)
                writer.icons(programme.icons)
                writeMedia(of: programme, to: &writer)
                writeTail(of: programme, to: &writer)
                return
            }
            writer.byte(layout == .inline ? inline : apart)
            writer.texts(programme.titles)
            writer.texts(programme.subTitles)
            if layout == .inline { writer.texts(programme.descriptions) }
            writer.credits(programme.credits)
            writer.optional(programme.date)
            writer.texts(programme.categories)
            writer.texts(programme.keywords)
            writer.optionalText(programme.language)
            writer.optionalText(programme.originalLanguage)
            writer.optionalInt(programme.length)
            writer.icons(programme.icons)
            writer.strings(programme.urls)
            writer.texts(programme.countries)
            writer.episodeNumbers(programme.episodeNumbers)
            writeMedia(of: programme, to: &writer)
            writeFlags(of: programme, to: &writer)
            writeTail(of: programme, to: &writer)
        }
    }

    /// What a programme's body keeps for version 3's details, which the airings of one episode share.
    static func shared(_ programme: Programme) -> [UInt8] {
        BinaryWriter.bytes { writer in
            writer.byte(sharedLayout)
            writer.texts(programme.descriptions)
            writer.credits(programme.credits)
            writer.optional(programme.date)
            writer.texts(programme.keywords)
            writer.optionalText(programme.language)
            writer.optionalText(programme.originalLanguage)
            writer.optionalInt(programme.length)
            writer.strings(programme.urls)
            writer.texts(programme.countries)
        }
    }

    /// The descriptions a body kept for version 2's details: none when there are none.
    static func descriptions(_ descriptions: [LocalizedText]) -> [UInt8] {
        guard !descriptions.isEmpty else { return [] }
        return BinaryWriter.bytes { $0.texts(descriptions) }
    }

    /// Rebuilds a programme from its columns and details, with `detail`'s fields; nil when the details are unreadable.
    /// `kept` is what the programme's body keeps for versions 2 and 3 (``shared(_:)``); a summary needs none.
    package static func decode(_ bytes: UnsafeRawBufferPointer, descriptions kept: UnsafeRawBufferPointer? = nil,
                               channel: ChannelID, start: Date, stop: Date?, detail: ProgrammeDetail = .full) -> Programme? {
        var reader = BinaryReader(bytes: bytes)
        let version = reader.byte()
        guard version == inline || version == apart || version == shared else { return nil }
        var programme = Programme(channel: channel, start: start, stop: stop, titles: reader.texts())
        programme.subTitles = reader.texts()
        if version == shared {
            programme.categories = reader.texts()
            programme.episodeNumbers = reader.episodeNumbers()
            readFlags(into: &programme, from: &reader)
            if detail == .summary { return reader.isValid ? programme : nil }
            programme.icons = reader.icons()
            readMedia(into: &programme, from: &reader)
            readTail(into: &programme, from: &reader)
            guard reader.isValid, let kept, kept.count > 0 else { return reader.isValid ? programme : nil }
            return readShared(into: &programme, from: kept) ? programme : nil
        }
        if detail == .summary { return summary(of: &programme, from: &reader, version: version) }
        if version == inline {
            programme.descriptions = reader.texts()
        } else if let kept, kept.count > 0 {
            var apart = BinaryReader(bytes: kept)
            programme.descriptions = apart.texts()
            guard apart.isValid, kept[0] != sharedLayout else { return nil }
        }
        programme.credits = reader.credits()
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
        readMedia(into: &programme, from: &reader)
        readFlags(into: &programme, from: &reader)
        readTail(into: &programme, from: &reader)
        return reader.isValid ? programme : nil
    }

    /// The title of the programme whose details are `bytes` (``Programme/title``), the only text a row kept twice until
    /// v40 (a `title` column beside the details' titles); nil when they are unreadable. Every version begins with the
    /// titles.
    package static func title(of bytes: UnsafeRawBufferPointer) -> String? {
        var reader = BinaryReader(bytes: bytes)
        let version = reader.byte()
        guard version == inline || version == apart || version == shared else { return nil }
        let titles = reader.texts()
        return reader.isValid ? titles.preferred() ?? "" : nil
    }

    /// What a body keeps for version 3 (``shared(_:)``), read into `programme`; false when it is unreadable.
    private static func readShared(into programme: inout Programme, from kept: UnsafeRawBufferPointer) -> Bool {
        var reader = BinaryReader(bytes: kept)
        guard reader.byte() == sharedLayout else { return false }
        programme.descriptions = reader.texts()
        programme.credits = reader.credits()
        programme.date = reader.optional()
        programme.keywords = reader.texts()
        programme.language = reader.optionalText()
        programme.originalLanguage = reader.optionalText()
        programme.length = reader.optionalInt()
        programme.urls = reader.strings()
        programme.countries = reader.texts()
        return reader.isValid
    }

    /// The rest of a ``ProgrammeDetail/summary`` of versions 1 and 2: walks past what it leaves out without making
    /// strings of it.
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

    /// Video and audio.
    private static func writeMedia(of programme: Programme, to writer: inout BinaryWriter) {
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
    }

    private static func readMedia(into programme: inout Programme, from reader: inout BinaryReader) {
        if reader.byte() == 1 {
            programme.video = Video(isPresent: reader.optionalBool(), isColour: reader.optionalBool(),
                                    aspect: reader.optional(), quality: reader.optional())
        }
        if reader.byte() == 1 {
            programme.audio = Audio(isPresent: reader.optionalBool(), stereo: reader.optional())
        }
    }

    /// Subtitles, ratings, star ratings and the clump index: the last fields of every version.
    private static func writeTail(of programme: Programme, to writer: inout BinaryWriter) {
        writer.count(programme.subtitles.count)
        for subtitles in programme.subtitles {
            writer.optional(subtitles.type)
            writer.optionalText(subtitles.language)
        }
        writer.ratings(programme.ratings)
        writer.ratings(programme.starRatings)
        writer.optional(programme.clumpIndex)
    }

    private static func readTail(into programme: inout Programme, from reader: inout BinaryReader) {
        for _ in 0..<reader.items() {
            programme.subtitles.append(Subtitles(type: reader.optional(), language: reader.optionalText()))
        }
        programme.ratings = reader.ratings()
        programme.starRatings = reader.ratings()
        programme.clumpIndex = reader.optional()
    }

    /// Repeat, premiere, last chance and new: written together, read by every decoding.
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
        BinaryWriter.bytes { writer in
            writer.byte(inline)
            writer.texts(channel.displayNames)
            writer.icons(channel.icons)
            writer.strings(channel.urls)
            writer.optional(channel.number)
        }
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, id: ChannelID) -> Channel? {
        var reader = BinaryReader(bytes: bytes)
        guard reader.byte() == inline else { return nil }
        let channel = Channel(id: id, displayNames: reader.texts(), icons: reader.icons(), urls: reader.strings(),
                              number: reader.optional())
        return reader.isValid ? channel : nil
    }
}
