import Foundation
import GuideCore

/// One channel's row of the grid for a broadcast day: the server renders these for the first screen (and for
/// browsers without JavaScript); the grid's script fetches the same rows as JSON while scrolling.
struct GridRow: Sendable {
    /// The row's place in the viewer's lineup, from 0.
    var index: Int
    var ariaIndex: Int
    var id: String
    var name: String
    var number: String?
    var logo: String?
    var cells: [GridCell]

    /// - Parameter followed: the title keys (``EpisodeLinker/titleKey(_:)``) of the shows the viewer follows; their
    ///   programmes are marked.
    /// - Parameter recorded: the airings the recorder is asked to record (``GridCell/recordingKey(_:_:)``), marked red.
    /// - Parameter languages: the viewer's listing languages (``GuideContext/listingLanguages``), for the titles.
    init(index: Int, channel: Channel, programmes: [StoredProgramme], day: TimeWindow, clock: ViewerClock, followed: Set<String> = [],
         recorded: Set<String> = [], languages: [String] = []) {
        self.index = index
        ariaIndex = index + 2  // The ruler is row 1.
        id = channel.id.rawValue
        name = channel.name
        number = channel.number
        logo = ChannelLogos.address(of: channel)
        cells = programmes.map { GridCell($0, day: day, clock: clock, followed: followed, recorded: recorded, languages: languages) }
    }

    /// A programme's image on a page: SD's artwork through tvguide's own address (``ProgrammeArtworkImages``), else its
    /// first image's address if it is http(s): a `javascript:` or `data:` URL from a feed never reaches a page.
    /// (Channel logos go through tvguide's cache: ``ChannelLogos``.)
    static func safeImage(_ icons: [Icon]) -> String? {
        if let artwork = ProgrammeArtworkImages.address(of: icons) { return artwork }
        guard let source = icons.first?.src, ChannelLogos.isWeb(source) else { return nil }
        return source
    }

    /// Stream addresses a page may link to: the schemes players open (a `javascript:` "stream" never reaches a page).
    static let streamSchemes: Set<String> = ["http", "https", "rtmp", "rtmps", "rtsp", "rtp", "udp", "mms", "mmsh"]

    /// `stream` if its scheme is one of ``streamSchemes``.
    static func safeStream(_ stream: String?) -> String? {
        guard let stream, stream.contains("://"), let scheme = URLComponents(string: stream)?.scheme?.lowercased(),
              streamSchemes.contains(scheme) else { return nil }
        return stream
    }
}

/// A programme on the grid, placed by ``GridLayout/span(start:end:in:)``: the script places cells from the seconds,
/// the server-rendered rows from the minutes (CSS classes).
struct GridCell: Sendable {
    var id: Int64
    var title: String
    /// "20:00–21:00" in the viewer's zone.
    var time: String
    var genre: String
    var span: GridLayout.Span
    /// A show the viewer follows.
    var isFollowed: Bool
    /// The recorder is asked to record it.
    var isRecording: Bool

    /// How an airing is named among those to record: its channel and start.
    static func recordingKey(_ channel: ChannelID, _ start: Date) -> String { "\(start.unixSeconds) \(channel.rawValue)" }

    init(_ stored: StoredProgramme, day: TimeWindow, clock: ViewerClock, followed: Set<String>, recorded: Set<String> = [],
         languages: [String] = []) {
        let programme = stored.programme
        id = stored.id.rawValue
        title = programme.title(in: languages)
        time = "\(clock.time(programme.start))–\(clock.time(stored.end))"
        genre = programme.genre.rawValue
        span = GridLayout.span(start: programme.start, end: stored.end, in: day)
        isFollowed = !followed.isEmpty && followed.contains(EpisodeLinker.titleKey(programme.title))
        isRecording = !recorded.isEmpty && recorded.contains(Self.recordingKey(programme.channel, programme.start))
    }
}

/// An hour mark on the time ruler.
struct RulerMark: Sendable {
    var label: String
    var offset: Int
}

extension GridRow {
    /// Hour marks for `day` in the viewer's zone: 23 or 25 of them when the clocks change.
    static func ruler(for day: TimeWindow, clock: ViewerClock) -> [RulerMark] {
        var marks: [RulerMark] = []
        var instant = day.start
        while instant < day.end {
            marks.append(RulerMark(label: clock.time(instant), offset: Int(instant.timeIntervalSince(day.start) / 60)))
            instant = instant.addingTimeInterval(3600)
        }
        return marks
    }
}
