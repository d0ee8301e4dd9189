import Foundation

/// What kind of feed a source reads.
public enum SourceFormat: String, Codable, Sendable, CaseIterable {
    /// An XMLTV file or URL, plain or gzip.
    case xmltv
    /// Per-channel files in the legacy Radio Times tilde-delimited format, one URL per channel.
    case radiotimes
    /// TVmaze's country schedule (`/schedule?country=XX&date=`), one request per day.
    case tvmaze
    /// An M3U (IPTV) playlist: no programmes, but the channels' numbers, logos, groups and stream addresses.
    case m3u
    /// Schedules Direct's lineups (`USA-IL57303-X`, commas between several), for the account an admin signed in with.
    case schedulesdirect
    /// An XMLTV grabber installed on the machine (`tv_grab_fr`), run with the configuration kept for the source.
    case grabber
    /// An HDHomeRun tuner on the network (`http://192.168.1.70`): its guide from Silicondust's service, by the key the
    /// tuner gives at each refresh.
    case hdhomerun
    /// An Enigma2 receiver's bouquet EPG through its OpenWebif (`http://BOX/api/epgbouquet?bRef=...`).
    case openwebif
}

/// A listings source an admin configured: where its listings come from and how they are treated.
public struct SourceDefinition: Codable, Hashable, Sendable {
    public var name: SourceName
    public var format: SourceFormat
    /// An XMLTV URL or path; for Radio Times a URL or path with `{channel}` where the channel's number goes; for
    /// TVmaze a schedule URL (`https://api.tvmaze.com/schedule?country=GB`) or just the country code.
    public var location: String
    /// Higher wins where two sources list the same channel at the same time.
    public var priority: Int
    /// How often `serve` refreshes it, in seconds.
    public var refreshInterval: Int
    /// Added to every time the source gives, in seconds (for feeds whose times are off by a fixed amount).
    public var timeShift: Int
    /// When set, the source's times are wall-clock times in this zone whatever offset they carry.
    public var localZone: String?
    /// Whether channels the source starts offering are kept without an admin choosing them.
    public var keepNewChannels: Bool
    /// Radio Times: the channel numbers to fetch.
    public var channels: [String]
    /// TVmaze, grabbers and HDHomeRun tuners: how many days, from today, to fetch.
    public var days: Int

    public init(name: SourceName, format: SourceFormat, location: String, priority: Int = 0,
                refreshInterval: Int = 12 * 3600, timeShift: Int = 0, localZone: String? = nil,
                keepNewChannels: Bool = true, channels: [String] = [], days: Int = 7) {
        self.name = name
        self.format = format
        self.location = location
        self.priority = priority
        self.refreshInterval = refreshInterval
        self.timeShift = timeShift
        self.localZone = localZone
        self.keepNewChannels = keepNewChannels
        self.channels = channels
        self.days = days
    }

    /// The priorities an admin may give.
    public static let priorityRange = -1_000_000...1_000_000
    /// How often a source may be refreshed, in seconds: every 5 minutes to once a year.
    public static let refreshIntervalRange = 300...(366 * 86_400)
    /// The time shifts that are shifts, in seconds: up to 48 hours either way.
    public static let timeShiftRange = -(48 * 3600)...(48 * 3600)
    /// How many days of a TVmaze schedule to fetch.
    public static let daysRange = 1...30
    /// ``refreshIntervalRange`` in hours, as forms and the CLI take it.
    public static let refreshHoursRange = (Double(refreshIntervalRange.lowerBound) / 3600)...(Double(refreshIntervalRange.upperBound) / 3600)
    /// ``timeShiftRange`` in minutes, as forms and the CLI take it.
    public static let timeShiftMinutesRange = (timeShiftRange.lowerBound / 60)...(timeShiftRange.upperBound / 60)

    /// Seconds for an interval given in hours within ``refreshHoursRange`` (checked: an hours figure from outside).
    public static func refreshInterval(hours: Double) -> Int? {
        guard hours.isFinite, refreshHoursRange.contains(hours) else { return nil }
        return Int((hours * 3600).rounded())
    }

    /// The shortest refresh interval of a Schedules Direct source: 2 hours, as Dispatcharr, an approved client, keeps.
    public static let schedulesDirectShortestInterval = 2 * 3600

    /// The Schedules Direct lineups a location names (commas or spaces between them).
    public static func lineups(in location: String) -> [String] {
        location.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// Whether `name` can name an XMLTV grabber: `tv_grab_` then letters, digits and `_` (a name on the path, never a
    /// path).
    public static func isGrabberName(_ name: String) -> Bool {
        name.hasPrefix("tv_grab_") && (9...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    /// Whether `text` is a Schedules Direct lineup id: a country (or `ZZZ`), a headend and a device, `-` between them.
    static func isLineupID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && text.utf8.count <= 64 && parts[0].count == 3 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }
        }
    }

    /// Why the definition cannot work, or nil. Checked before it is stored.
    public var problem: Sentence? {
        let source = ["source": name.rawValue]
        if name.rawValue.isEmpty || name.rawValue.count > 100 { return Sentence(saying: "a source's name has 1 to 100 characters") }
        if location.isEmpty { return Sentence(saying: "{source} has no URL or path", source) }
        if let scheme = URL(string: location)?.scheme?.lowercased(), location.contains("://"),
           !["http", "https", "file"].contains(scheme) {
            return Sentence(saying: "{source}: only http, https and file locations can be fetched, not {scheme}", source.merging(["scheme": scheme]) { $1 })
        }
        if !Self.priorityRange.contains(priority) {
            return Sentence(saying: "{source}: the priority is from {lowest} to {highest}", source.merging(
                ["lowest": "\(Self.priorityRange.lowerBound)", "highest": "\(Self.priorityRange.upperBound)"]) { $1 })
        }
        if !Self.refreshIntervalRange.contains(refreshInterval) { return Sentence(saying: "{source}: refresh every 5 minutes to once a year", source) }
        if !Self.timeShiftRange.contains(timeShift) { return Sentence(saying: "{source}: a time shift of more than 48 hours is not a time shift", source) }
        if let localZone, TimeZone(identifier: localZone) == nil {
            return Sentence(saying: "{source}: {zone} is not a time zone (try Europe/London)", source.merging(["zone": localZone]) { $1 })
        }
        if !Self.daysRange.contains(days) { return Sentence(saying: "{source}: fetch 1 to 30 days", source) }
        if format == .schedulesdirect, refreshInterval < Self.schedulesDirectShortestInterval {
            return Sentence(saying: "{source}: Schedules Direct is refreshed every 2 hours at most (its approved clients wait that long between refreshes)", source)
        }
        if format == .schedulesdirect, case let lineups = Self.lineups(in: location),
           !(1...4).contains(lineups.count) || !lineups.allSatisfy(Self.isLineupID) {
            return Sentence(saying: "{source}: name 1 to 4 Schedules Direct lineups, like USA-IL57303-X (commas between them)", source)
        }
        if format == .hdhomerun, !(location.hasPrefix("http://") || location.hasPrefix("https://")) {
            return Sentence(saying: "{source}: an HDHomeRun is named by its address, like http://192.168.1.70", source)
        }
        if format == .openwebif, !((location.hasPrefix("http://") || location.hasPrefix("https://")) && location.contains("/api/epgbouquet?bRef=")) {
            return Sentence(saying: "{source}: an Enigma2 receiver's EPG is its bouquet's address, like http://192.168.1.30/api/epgbouquet?bRef=... (the preset finds it)", source)
        }
        if format == .grabber, !Self.isGrabberName(location) {
            return Sentence(saying: "{source}: name an XMLTV grabber installed on the machine, like tv_grab_fr", source)
        }
        if format == .radiotimes, location.contains("{channel}"), channels.isEmpty {
            return Sentence(saying: "{source}: name the Radio Times channels to fetch (--channels 26,92)", source)
        }
        return nil
    }
}

/// What a source said about one of its channels, and what the guide does with it.
public struct SourceChannel: Codable, Hashable, Sendable {
    /// The source's own id for the channel.
    public var id: ChannelID
    /// Its display name as the source last gave it.
    public var name: String
    /// Whether its listings go into the guide.
    public var keep: Bool
    /// The guide channel its listings go to; nil for the channel of the same id.
    public var mappedTo: ChannelID?
    /// When a refresh last saw it offered; nil when only an admin has named it so far.
    public var lastSeen: Date?
    /// Who chose ``mappedTo``: nil while nobody has. A person's choice (to keep the channel as itself too) stands for
    /// good; the matcher's may be replaced by a later match.
    public var chosenBy: MappingChooser?
    /// The guide channels the matcher suggested at its last look, best first (at most ``ChannelCandidate/most``).
    public var candidates: [ChannelCandidate]

    public init(id: ChannelID, name: String, keep: Bool, mappedTo: ChannelID? = nil, lastSeen: Date? = nil,
                chosenBy: MappingChooser? = nil, candidates: [ChannelCandidate] = []) {
        self.id = id
        self.name = name
        self.keep = keep
        self.mappedTo = mappedTo
        self.lastSeen = lastSeen
        self.chosenBy = chosenBy
        self.candidates = candidates
    }

    /// The guide channel its listings go to.
    public var guideChannel: ChannelID { mappedTo ?? id }

    /// Whether it waits for a person: nobody chose, and the matcher has suggestions it was not sure enough to apply.
    public var awaitsReview: Bool { chosenBy == nil && mappedTo == nil && !candidates.isEmpty }
}

/// Who chose where a source's channel goes.
public enum MappingChooser: String, Codable, Hashable, Sendable {
    case person
    case matcher
}

/// A guide channel the matcher suggests for a source's channel: how sure it is (0 to 1) and why, in words.
public struct ChannelCandidate: Codable, Hashable, Sendable {
    public var channel: ChannelID
    public var confidence: Double
    public var why: [String]

    /// Suggestions kept per channel.
    public static let most = 5

    public init(channel: ChannelID, confidence: Double, why: [String]) {
        (self.channel, self.confidence, self.why) = (channel, confidence, why)
    }
}
