import Foundation
import GuideCore

/// Writes channels and programmes as XMLTV that validates against xmltv.dtd (elements in DTD order, times in
/// UTC with an explicit `+0000`), one element at a time so an export of any size streams.
public struct XMLTVWriter {
    private let write: (String) throws -> Void

    /// `write` receives the document in pieces, in order.
    public init(_ write: @escaping (String) throws -> Void) {
        self.write = write
    }

    /// Writes a whole document to the file at `url` (made anew): `begin`, what `body` writes, `end`, through a 64 KB
    /// buffer.
    public static func writeFile(at url: URL, generator: String, _ body: (XMLTVWriter) throws -> Void) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var buffer = ""
        let writer = XMLTVWriter { piece in
            buffer += piece
            if buffer.utf8.count > 1 << 16 {
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        try writer.begin(generator: generator)
        try body(writer)
        try writer.end()
        try handle.write(contentsOf: Data(buffer.utf8))
    }

    public func begin(generator: String = "tvguide") throws {
        try write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE tv SYSTEM \"xmltv.dtd\">\n")
        try write("<tv generator-info-name=\"\(Self.escape(generator))\">\n")
    }

    public func end() throws {
        try write("</tv>\n")
    }

    public func write(_ channel: Channel) throws {
        var out = "  <channel id=\"\(Self.escape(channel.id.rawValue))\">\n"
        let names = channel.displayNames.isEmpty ? [LocalizedText(channel.id.rawValue)] : channel.displayNames
        for name in names { out += Self.element("display-name", name, indent: 4) }
        for icon in channel.icons { out += Self.icon(icon, indent: 4) }
        for url in channel.urls { out += "    <url>\(Self.escape(url))</url>\n" }
        out += "  </channel>\n"
        try write(out)
    }

    /// Writes a programme; `stop` overrides the programme's own (for a stop a repair derived).
    public func write(_ programme: Programme) throws {
        var out = "  <programme start=\"\(XMLTVTimestamp.format(programme.start))\""
        if let stop = programme.stop { out += " stop=\"\(XMLTVTimestamp.format(stop))\"" }
        out += " channel=\"\(Self.escape(programme.channel.rawValue))\""
        if let clump = programme.clumpIndex { out += " clumpidx=\"\(Self.escape(clump))\"" }
        out += ">\n"
        let titles = programme.titles.isEmpty ? [LocalizedText("")] : programme.titles
        for title in titles { out += Self.element("title", title) }
        for text in programme.subTitles { out += Self.element("sub-title", text) }
        for text in programme.descriptions { out += Self.element("desc", text) }
        if !programme.credits.isEmpty {
            out += "    <credits>\n"
            for role in Credit.Role.allCases {
                for credit in programme.credits where Self.writtenAs(credit) == role { out += Self.credit(credit) }
            }
            out += "    </credits>\n"
        }
        if let date = programme.date { out += "    <date>\(Self.escape(date))</date>\n" }
        for text in programme.categories { out += Self.element("category", text) }
        for text in programme.keywords { out += Self.element("keyword", text) }
        if let language = programme.language { out += Self.element("language", language) }
        if let language = programme.originalLanguage { out += Self.element("orig-language", language) }
        if let length = programme.length {
            out += length % 60 == 0 ? "    <length units=\"minutes\">\(length / 60)</length>\n"
                : "    <length units=\"seconds\">\(length)</length>\n"
        }
        for icon in programme.icons { out += Self.icon(icon, indent: 4) }
        for url in programme.urls { out += "    <url>\(Self.escape(url))</url>\n" }
        for text in programme.countries { out += Self.element("country", text) }
        for number in programme.episodeNumbers {
            out += "    <episode-num system=\"\(Self.escape(number.system))\">\(Self.escape(number.value))</episode-num>\n"
        }
        if let video = programme.video { out += Self.video(video) }
        if let audio = programme.audio { out += Self.audio(audio) }
        if let shown = programme.previouslyShown {
            out += "    <previously-shown"
            if let start = shown.start { out += " start=\"\(Self.escape(start))\"" }
            if let channel = shown.channel { out += " channel=\"\(Self.escape(channel))\"" }
            out += " />\n"
        }
        if let premiere = programme.premiere { out += Self.element("premiere", premiere) }
        if let lastChance = programme.lastChance { out += Self.element("last-chance", lastChance) }
        if programme.isNew { out += "    <new />\n" }
        for subtitles in programme.subtitles {
            out += "    <subtitles" + (subtitles.type.map { " type=\"\(Self.escape($0))\"" } ?? "")
            if let language = subtitles.language {
                out += ">\n" + Self.element("language", language, indent: 6) + "    </subtitles>\n"
            } else {
                out += " />\n"
            }
        }
        for rating in programme.ratings { out += Self.rating("rating", rating) }
        for rating in programme.starRatings { out += Self.rating("star-rating", rating) }
        out += "  </programme>\n"
        try write(out)
    }

    // MARK: - Pieces

    static func element(_ name: String, _ text: LocalizedText, indent: Int = 4) -> String {
        let space = String(repeating: " ", count: indent)
        let lang = text.language.map { " lang=\"\(escape($0))\"" } ?? ""
        return text.text.isEmpty ? "\(space)<\(name)\(lang) />\n" : "\(space)<\(name)\(lang)>\(escape(text.text))</\(name)>\n"
    }

    static func icon(_ icon: Icon, indent: Int) -> String {
        var out = String(repeating: " ", count: indent) + "<icon src=\"\(escape(icon.src))\""
        if let width = icon.width { out += " width=\"\(width)\"" }
        if let height = icon.height { out += " height=\"\(height)\"" }
        return out + " />\n"
    }

    /// The element a credit is written as: its role's, but a guest playing a character is an actor marked as a
    /// guest, since xmltv.dtd gives the character (`role`) and the guest mark to actors alone.
    static func writtenAs(_ credit: Credit) -> Credit.Role {
        credit.role == .guest && credit.character != nil ? .actor : credit.role
    }

    static func credit(_ credit: Credit) -> String {
        let element = writtenAs(credit).rawValue
        var out = "      <\(element)"
        if element == Credit.Role.actor.rawValue {
            if let character = credit.character { out += " role=\"\(escape(character))\"" }
            if credit.isGuest || credit.role == .guest { out += " guest=\"yes\"" }
        }
        out += ">\(escape(credit.name))"
        for image in credit.images { out += "<image>\(escape(image))</image>" }
        for url in credit.urls { out += "<url>\(escape(url))</url>" }
        return out + "</\(element)>\n"
    }

    static func video(_ video: Video) -> String {
        var out = "    <video>\n"
        if let present = video.isPresent { out += "      <present>\(present ? "yes" : "no")</present>\n" }
        if let colour = video.isColour { out += "      <colour>\(colour ? "yes" : "no")</colour>\n" }
        if let aspect = video.aspect { out += "      <aspect>\(escape(aspect))</aspect>\n" }
        if let quality = video.quality { out += "      <quality>\(escape(quality))</quality>\n" }
        return out + "    </video>\n"
    }

    static func audio(_ audio: Audio) -> String {
        var out = "    <audio>\n"
        if let present = audio.isPresent { out += "      <present>\(present ? "yes" : "no")</present>\n" }
        if let stereo = audio.stereo { out += "      <stereo>\(escape(stereo))</stereo>\n" }
        return out + "    </audio>\n"
    }

    static func rating(_ name: String, _ rating: Rating) -> String {
        var out = "    <\(name)" + (rating.system.map { " system=\"\(escape($0))\"" } ?? "") + ">\n"
        out += "      <value>\(escape(rating.value))</value>\n"
        for icon in rating.icons { out += Self.icon(icon, indent: 6) }
        return out + "    </\(name)>\n"
    }

    /// Escapes text for an element or a double-quoted attribute, in XML or HTML; drops characters XML 1.0 cannot carry.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 < 0x20 }) else {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
