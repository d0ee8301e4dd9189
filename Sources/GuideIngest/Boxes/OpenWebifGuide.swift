import Foundation
import GuideCore
import GuideHTTP
import XMLTV

/// The EPG an Enigma2 receiver (VU+, Dreambox, ...) has from the air, through its OpenWebif: a source of format
/// `openwebif` whose location is a bouquet's EPG (`http://BOX/api/epgbouquet?bRef=...`, every event the receiver has
/// for the bouquet's channels), written as XMLTV for the ordinary import. The preset finds the bouquet by name
/// (`/api/bouquets`). OpenWebif's answers are its `getBouquetEpg` and `getBouquets` (E2OpenPlugins/e2openplugin-OpenWebif,
/// `plugin/controllers/models/services.py`).
public struct OpenWebifGuide: Sendable {
    let transport: any HTTPTransport
    let credentials: HTTPCredentials?

    public init(transport: any HTTPTransport, credentials: HTTPCredentials?) {
        (self.transport, self.credentials) = (transport, credentials)
    }

    struct Bouquets: Decodable {
        /// Each a bouquet's reference and name.
        var bouquets: [[String]]
    }

    struct Events: Decodable {
        var events: [Event]
        var result: Bool?
    }

    struct Event: Decodable {
        var begin_timestamp: Int64
        var duration_sec: Int64
        var title: String?
        var shortdesc: String?
        var longdesc: String?
        var sref: String
        var sname: String?
        var genre: String?
    }

    private var request: BoxRequest { BoxRequest(transport: transport, credentials: credentials, kind: Sentence(saying: "an Enigma2 receiver's OpenWebif")) }

    /// The EPG address of the bouquet called `name` (the first when nil or blank) on the receiver at `base`, and the
    /// bouquet's name.
    public func bouquet(at base: String, named name: String?) async throws -> (name: String, location: String) {
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        let answer: Bouquets = try await request.json(root + "/api/bouquets")
        let bouquets = answer.bouquets.filter { $0.count >= 2 && !$0[0].isEmpty }
        let wanted = name.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        guard let chosen = wanted.map({ wanted in bouquets.first { $0[1].caseInsensitiveCompare(wanted) == .orderedSame } }) ?? bouquets.first else {
            let names = bouquets.map { $0[1] }.prefix(20).joined(separator: ", ")
            throw wanted.map { IngestError(.notFound, saying: "the receiver has no bouquet called {name}; it has {names}", ["name": $0, "names": names]) }
                ?? IngestError(.notFound, saying: "the receiver has no bouquets")
        }
        let reference = chosen[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? chosen[0]
        return (chosen[1], root + "/api/epgbouquet?bRef=" + reference)
    }

    public struct Counts: Sendable, Equatable {
        public var channels = 0
        public var programmes = 0
    }

    /// Writes the events of the bouquet EPG at `location` to `file`.
    @discardableResult
    public func refresh(location: String, into file: URL) async throws -> Counts {
        let answer: Events = try await request.json(location)
        // OpenWebif answers one placeholder ("N/A", at 0) where it has nothing.
        let events = answer.events.filter { $0.begin_timestamp > 0 && (1...(31 * 86_400)).contains($0.duration_sec) && !$0.sref.isEmpty }
        guard answer.result != false else { throw IngestError(.notFound, saying: "the receiver has no such bouquet any more: add it again") }
        var order: [String] = []
        var names: [String: String] = [:]
        for event in events where names[event.sref] == nil {
            order.append(event.sref)
            names[event.sref] = Self.unescaped(event.sname ?? "").isEmpty ? event.sref : Self.unescaped(event.sname ?? "")
        }
        var counts = Counts()
        try XMLTVWriter.writeFile(at: file, generator: "tvguide \(TVGuideVersion.number) from an Enigma2 receiver") { writer in
            for reference in order {
                try writer.write(Channel(id: Self.channelID(reference), displayNames: [LocalizedText(names[reference] ?? reference)]))
                counts.channels += 1
            }
            for event in events.sorted(by: { ($0.sref, $0.begin_timestamp) < ($1.sref, $1.begin_timestamp) }) {
                try writer.write(Self.programme(event))
                counts.programmes += 1
            }
        }
        return counts
    }

    /// A service reference as a channel id: `1:0:19:7C:6:85:FFFF0000:0:0:0:` is `1_0_19_7C_6_85_FFFF0000_0_0_0.enigma2`.
    static func channelID(_ reference: String) -> ChannelID {
        let parts = reference.split(separator: ":", omittingEmptySubsequences: false)
        let trimmed = parts.reversed().drop { $0.isEmpty }.reversed()
        return ChannelID(trimmed.joined(separator: "_").filter { $0.isLetter || $0.isNumber || $0 == "_" } + ".enigma2")
    }

    static func programme(_ event: Event) -> Programme {
        let start = Date(timeIntervalSince1970: TimeInterval(event.begin_timestamp))
        let title = unescaped(event.title ?? "")
        var programme = Programme(channel: channelID(event.sref), start: start,
                                  stop: start.addingTimeInterval(TimeInterval(event.duration_sec)),
                                  titles: [LocalizedText(title.isEmpty ? "unknown" : title)])
        let short = unescaped(event.shortdesc ?? ""), long = unescaped(event.longdesc ?? "")
        // The short text is an episode's title when there is a long one and it is short; else it is the description.
        if !short.isEmpty, short != title, !long.isEmpty, short.count <= 100 { programme.subTitles = [LocalizedText(short)] }
        let description = long.isEmpty ? short : long
        if !description.isEmpty, description != title { programme.descriptions = [LocalizedText(description)] }
        if let genre = event.genre.map(unescaped), !genre.isEmpty { programme.categories = [LocalizedText(genre, language: "en")] }
        return programme
    }

    /// OpenWebif escapes its texts as HTML: the five entities and numeric references read back.
    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(10).firstIndex(of: ";") else { out.append("&"); rest = rest.dropFirst(); continue }
            let entity = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let value = named[String(entity)] {
                out += value
            } else if entity.hasPrefix("#"), let code = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : UInt32(entity.dropFirst()),
                      let scalar = Unicode.Scalar(code) {
                out.unicodeScalars.append(scalar)
            } else {
                out += rest[...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return (out + rest).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
