import Foundation

/// A half-open span of time `[start, end)`, the unit every listings query asks about.
public struct TimeWindow: Hashable, Codable, Sendable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = max(start, end)
    }

    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// Whether an airing `[from, to)` shows in this window; zero-length airings count at their instant.
    public func overlaps(from: Date, to: Date) -> Bool {
        from < end && (to > start || (from == to && from >= start))
    }

    /// The calendar day `day` (`YYYY-MM-DD`) in `timeZone`, from midnight (or `startHour`) to the next.
    public static func day(_ day: String, in timeZone: TimeZone, startHour: Int = 0) -> TimeWindow? {
        guard let date = CivilDate(day) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: date.year, month: date.month, day: date.day, hour: startHour)
        guard let start = calendar.date(from: components),
              calendar.component(.day, from: start) == date.day,
              let end = calendar.date(byAdding: .day, value: 1, to: start) else { return nil }
        return TimeWindow(start: start, end: end)
    }
}

/// One channel's programmes in a window of the guide, by start.
public struct ChannelListings: Hashable, Codable, Sendable {
    public var channel: ChannelID
    public var programmes: [StoredProgramme]

    public init(channel: ChannelID, programmes: [StoredProgramme]) {
        self.channel = channel
        self.programmes = programmes
    }
}

/// What is on a channel at an instant, and what follows.
public struct NowNext: Hashable, Codable, Sendable {
    public var channel: ChannelID
    public var now: StoredProgramme?
    public var next: StoredProgramme?
    /// Until when this is the answer, for a later instant (nil: until the listings change). Not encoded: it is the
    /// store's to say, for those that keep answers.
    public var holdsUntil: Date?
    /// The ids of what is on and what follows (nil: none), given also where the store left the programme out because
    /// the caller already had it (``ListingStore/nowNext(at:channels:detail:omitting:)``). Not encoded.
    public var nowID: ProgrammeID?
    public var nextID: ProgrammeID?

    public init(channel: ChannelID, now: StoredProgramme?, next: StoredProgramme?, holdsUntil: Date? = nil,
                nowID: ProgrammeID? = nil, nextID: ProgrammeID? = nil) {
        self.channel = channel
        self.now = now
        self.next = next
        self.holdsUntil = holdsUntil
        self.nowID = nowID ?? now?.id
        self.nextID = nextID ?? next?.id
    }

    private enum CodingKeys: String, CodingKey {
        case channel, now, next
    }
}

/// A programme as the store holds it: its id, the source it came from, and the programme itself.
public struct StoredProgramme: Hashable, Codable, Sendable {
    public var id: ProgrammeID
    public var source: SourceName
    public var programme: Programme
    /// When it ends in the guide: its stop, or for an open-ended last programme, its start plus its length or an hour.
    public var end: Date

    public init(id: ProgrammeID, source: SourceName, programme: Programme, end: Date) {
        self.id = id
        self.source = source
        self.programme = programme
        self.end = end
    }
}
