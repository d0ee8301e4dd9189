import Foundation
import GuideCore
import GuideHTTP
import XMLTV

/// The guide an HDHomeRun tuner's owner gets from Silicondust, for a source of format `hdhomerun` (its location: the
/// tuner's address, `http://192.168.1.70`). Each refresh asks the tuner's `discover.json` for its `DeviceAuth` first
/// (the key rotates: one from an earlier refresh may be refused), its `lineup.json` for its channels, then the guide
/// service's `guide.php?DeviceAuth=` a window at a time (`Start=` the end of what came), and writes XMLTV for the
/// ordinary import. Without a DVR subscription the service gives a few hours a window; with one, days.
/// (hdhomerun/NOTES.md in the shared data: the device's answers and how clients read them.)
public struct HDHomeRunGuide: Sendable {
    public static let defaultBase = "https://api.hdhomerun.com"
    /// At most this many guide windows a refresh (each a request).
    static let mostWindows = 200

    let transport: any HTTPTransport
    /// The guide service (`hdhomerun-guide-url`; tests name a stand-in).
    let base: String
    let now: @Sendable () -> Date

    public init(transport: any HTTPTransport, base: String = defaultBase, now: @escaping @Sendable () -> Date) {
        self.transport = transport
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.now = now
    }

    struct Discover: Decodable {
        var DeviceID: String?
        var DeviceAuth: String?
        var FriendlyName: String?
        var LineupURL: String?
    }

    struct LineupEntry: Decodable {
        var GuideNumber: String
        var GuideName: String?
    }

    struct GuideChannel: Decodable {
        var GuideNumber: String
        var GuideName: String?
        var Affiliate: String?
        var ImageURL: String?
        var Guide: [Airing]?
    }

    struct Airing: Decodable {
        var StartTime: Int64
        var EndTime: Int64
        var Title: String?
        var EpisodeTitle: String?
        var EpisodeNumber: String?
        var OriginalAirdate: Int64?
        var Synopsis: String?
        var Filter: [String]?
    }

    /// What a refresh did: requests made, channels and airings written.
    public struct Counts: Sendable, Equatable {
        public var requests = 0
        public var channels = 0
        public var airings = 0
    }

    /// Writes `days` days of the tuner at `device`'s guide, from now, to `file`.
    @discardableResult
    public func refresh(device: String, days: Int, into file: URL) async throws -> Counts {
        var counts = Counts()
        let address = device.hasSuffix("/") ? String(device.dropLast()) : device
        let discover: Discover = try await json(address + "/discover.json", counts: &counts)
        guard let key = discover.DeviceAuth, !key.isEmpty else {
            throw IngestError(.download, saying: "the HDHomeRun at {device} gives no DeviceAuth (older firmware: update it, or use its XMLTV another way)",
                              ["device": device])
        }
        let deviceID = discover.DeviceID.map { $0.filter { $0.isLetter || $0.isNumber } } ?? "hdhomerun"
        let lineup: [LineupEntry] = try await json(discover.LineupURL.flatMap { $0.hasPrefix(address) ? $0 : nil } ?? address + "/lineup.json",
                                                   counts: &counts)
        let names = Dictionary(lineup.map { ($0.GuideNumber, $0.GuideName ?? $0.GuideNumber) }, uniquingKeysWith: { first, _ in first })
        let end = Int64(now().timeIntervalSince1970) + Int64(Bounded.clamped(days, to: 1...30)) * 86_400
        var channels: [String: GuideChannel] = [:]
        var order: [String] = []
        var airings: [String: [Int64: Airing]] = [:]
        var start: Int64?
        for _ in 0..<Self.mostWindows {
            let query = "DeviceAuth=" + Self.encoded(key) + (start.map { "&Start=\($0)" } ?? "")
            let window: [GuideChannel]? = try await json(base + "/api/guide.php?" + query, counts: &counts)
            var latest = start ?? 0
            var added = 0
            for channel in window ?? [] {
                if channels[channel.GuideNumber] == nil { order.append(channel.GuideNumber) }
                channels[channel.GuideNumber] = channels[channel.GuideNumber] ?? channel
                for airing in channel.Guide ?? [] where Self.isPlausible(airing) {
                    if airings[channel.GuideNumber, default: [:]].updateValue(airing, forKey: airing.StartTime) == nil { added += 1 }
                    latest = max(latest, airing.EndTime)
                }
            }
            // Done when the window brought nothing new, or the days asked for are in.
            guard added > 0, latest < end else { break }
            start = latest
        }
        // The tuner's own channels, named as its lineup names them; any the guide has that the lineup does not, too.
        let numbers = lineup.map(\.GuideNumber) + order.filter { names[$0] == nil }
        try XMLTVWriter.writeFile(at: file, generator: "tvguide \(TVGuideVersion.number) from an HDHomeRun") { writer in
            for number in numbers {
                let guide = channels[number]
                var displayNames = [LocalizedText(names[number] ?? guide?.GuideName ?? number)]
                if let affiliate = guide?.Affiliate, !affiliate.isEmpty, affiliate != displayNames[0].text { displayNames.append(LocalizedText(affiliate)) }
                // Its number as a display name too, as XMLTV's DTD has no element for it (MythTV and SD's grabber do so).
                if number != displayNames[0].text { displayNames.append(LocalizedText(number)) }
                let icons = guide?.ImageURL.flatMap { $0.hasPrefix("http") ? [Icon(src: $0)] : nil } ?? []
                try writer.write(Channel(id: Self.channelID(number, device: deviceID), displayNames: displayNames, icons: icons, number: number))
                counts.channels += 1
            }
            for number in numbers {
                for airing in (airings[number] ?? [:]).values.sorted(by: { $0.StartTime < $1.StartTime }) {
                    try writer.write(Self.programme(airing, channel: Self.channelID(number, device: deviceID)))
                    counts.airings += 1
                }
            }
        }
        return counts
    }

    /// The instants an answer's times may name (epoch seconds, 1970 to 2100): read within it before any arithmetic.
    static let instants: ClosedRange<Int64> = 0...4_102_444_800

    /// Whether an airing's times are instants that end after they start, within 31 days.
    static func isPlausible(_ airing: Airing) -> Bool {
        instants.contains(airing.StartTime) && instants.contains(airing.EndTime) && airing.EndTime > airing.StartTime
            && airing.EndTime - airing.StartTime <= 31 * 86_400
    }

    /// Whether times `start` and `end` from the guide service would be taken (for tests of hostile answers).
    public static func takes(start: Int64, end: Int64, originalAirdate: Int64? = nil) -> Bool {
        let airing = Airing(StartTime: start, EndTime: end, OriginalAirdate: originalAirdate)
        guard isPlausible(airing) else { return false }
        _ = programme(airing, channel: ChannelID("x"))   // No trap on the original air date either.
        return true
    }

    /// A tuner's channel in the guide: its number and the device's id (`5.1.1053C0CA.hdhomerun`).
    static func channelID(_ number: String, device: String) -> ChannelID {
        ChannelID("\(number).\(device).hdhomerun")
    }

    static func programme(_ airing: Airing, channel: ChannelID) -> Programme {
        let start = Date(timeIntervalSince1970: TimeInterval(airing.StartTime))
        var programme = Programme(channel: channel, start: start, stop: Date(timeIntervalSince1970: TimeInterval(airing.EndTime)),
                                  titles: [LocalizedText(airing.Title.flatMap { $0.isEmpty ? nil : $0 } ?? "unknown")])
        if let episode = airing.EpisodeTitle, !episode.isEmpty { programme.subTitles = [LocalizedText(episode)] }
        if let synopsis = airing.Synopsis, !synopsis.isEmpty { programme.descriptions = [LocalizedText(synopsis)] }
        programme.categories = (airing.Filter ?? []).filter { !$0.isEmpty }.map { LocalizedText($0, language: "en") }
        if let number = airing.EpisodeNumber, !number.isEmpty {
            programme.episodeNumbers.append(EpisodeNumber(system: "onscreen", value: number))
            if let (season, episode) = Self.seasonAndEpisode(number) {
                programme.episodeNumbers.insert(EpisodeNumber(system: "xmltv_ns", value: "\(season - 1).\(episode - 1)."), at: 0)
            }
        }
        // Shown before when it first aired on an earlier day.
        if let first = airing.OriginalAirdate, Self.instants.contains(first), first + 86_400 <= airing.StartTime {
            programme.previouslyShown = PreviouslyShown(start: CivilDate(Date(timeIntervalSince1970: TimeInterval(first)), in: .gmt)
                .description.replacingOccurrences(of: "-", with: ""))
        }
        return programme
    }

    /// `S01E02` as (1, 2); nil for anything else (`EP012345`, a date).
    public static func seasonAndEpisode(_ text: String) -> (Int, Int)? {
        let upper = text.uppercased()
        guard upper.hasPrefix("S"), let e = upper.firstIndex(of: "E"),
              let season = Bounded.integer(upper[upper.index(after: upper.startIndex)..<e], in: 1...9999),
              let episode = Bounded.integer(upper[upper.index(after: e)...], in: 1...99_999) else { return nil }
        return (season, episode)
    }

    private func json<T: Decodable>(_ address: String, counts: inout Counts) async throws -> T {
        counts.requests += 1
        return try await BoxRequest(transport: transport, kind: Sentence(saying: "an HDHomeRun")).json(address, shown: Self.redacted)
    }

    /// An address with its DeviceAuth left out, for messages the health page keeps.
    static func redacted(_ address: String) -> String {
        guard let range = address.range(of: "DeviceAuth=") else { return address }
        let rest = address[range.upperBound...]
        return address[..<range.upperBound] + "…" + (rest.firstIndex(of: "&").map { String(rest[$0...]) } ?? "")
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
