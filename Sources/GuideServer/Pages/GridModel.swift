import Foundation
import GuideCore

/// One channel's row of the grid for a broadcast day: the server renders these for the first screen (and for
/// browsers without JavaScript); the grid's script fetches the same rows as JSON while scrolling.
struct GridRow: Encodable, Sendable {
    /// The row's place in the viewer's lineup, from 0.
    var index: Int
    var ariaIndex: Int
    var id: String
    var name: String
    var number: String?
    var logo: String?
    var cells: [GridCell]

    /// - Parameter followed: the folded names of the shows the viewer follows; their programmes are marked.
    init(index: Int, channel: Channel, programmes: [StoredProgramme], day: TimeWindow, clock: ViewerClock, followed: Set<String> = []) {
        self.index = index
        ariaIndex = index + 2  // The ruler is row 1.
        id = channel.id.rawValue
        name = channel.name
        number = channel.number
        logo = Self.safeImage(channel.icons)
        cells = programmes.map { GridCell($0, day: day, clock: clock, followed: followed) }
    }

    /// The first icon's address if it is http(s): a `javascript:` or `data:` URL from a feed never reaches a page.
    static func safeImage(_ icons: [Icon]) -> String? {
        guard let source = icons.first?.src else { return nil }
        let lower = source.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://") ? source : nil
    }
}

/// A programme on the grid: seconds from the day's start (negative when it began the day before), and the same
/// clipped to the day in whole minutes for the server-rendered layout's classes.
struct GridCell: Encodable, Sendable {
    var id: Int64
    var title: String
    var sub: String?
    var time: String
    /// Start and end in seconds from the start of the day; the script places cells exactly from these.
    var s: Int
    var e: Int
    var genre: String
    /// Offset and length in minutes, clipped to the day.
    var o: Int
    var d: Int
    var clipStart: Bool
    var clipEnd: Bool
    /// A show the viewer follows.
    var f: Bool

    init(_ stored: StoredProgramme, day: TimeWindow, clock: ViewerClock, followed: Set<String>) {
        let programme = stored.programme
        id = stored.id.rawValue
        title = programme.title
        sub = programme.subTitle
        time = "\(clock.time(programme.start))–\(clock.time(stored.end))"
        s = Int(programme.start.timeIntervalSince(day.start).rounded())
        e = Int(stored.end.timeIntervalSince(day.start).rounded())
        genre = Genre(categories: programme.categories.map(\.text)).rawValue
        let length = Int(day.duration.rounded())
        let start = min(max(s, 0), length), end = min(max(e, 0), length)
        o = start / 60
        d = max(0, (end + 30) / 60 - o)
        clipStart = s < 0
        clipEnd = e > length
        f = !followed.isEmpty && followed.contains(SearchText.fold(programme.title))
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, sub, time, s, e, genre, f
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
