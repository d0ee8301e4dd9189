import Foundation
import GuideCore
import GuideStore

/// What a reminder says, the same on every channel: "Film at 21:00 on BBC One" and when that is from now.
public struct ReminderMessage: Hashable, Sendable {
    /// "Remind me" on `title`.
    public var title: String
    /// "21:00 on BBC One, in 15 minutes" (or "started 4 minutes ago" when sent late).
    public var body: String
    /// The profile's reminders page, when the server knows its own address.
    public var link: String?
    /// Names this message for receivers that drop repeats: the reminder and the channel, or a test's own.
    public var id: String
    /// What it is about, for receivers that want more than text (the webhook's JSON).
    public var reminder: Reminder?

    public init(title: String, body: String, link: String?, id: String, reminder: Reminder?) {
        (self.title, self.body, self.link, self.id, self.reminder) = (title, body, link, id, reminder)
    }

    /// The message for `reminder` sent at `instant` to a viewer in `clock`'s zone and `words`' language, linking to the
    /// guide at `site`.
    public init(_ reminder: Reminder, channel: DeliveryChannelID, at instant: Date, clock: ViewerClock, words: Localizer, site: String?) {
        let what = reminder.what
        // Clamped: a reminder's start is the listings', and a day either way is as far as a sentence needs to say.
        let minutes = Int(max(-1440, min(1440, (what.start.timeIntervalSince(instant) / 60).rounded())))
        let values: KeyValuePairs<String, String> = ["time": clock.time(what.start), "channel": what.channelName, "date": clock.date(what.start)]
        let sameDay = clock.day(containing: what.start) == clock.day(containing: instant)
        let body = switch (minutes, sameDay) {
        case (..<0, true): words.plural("{time} on {channel}, started {count} minute ago", "{time} on {channel}, started {count} minutes ago",
                                        count: -minutes, values)
        case (..<0, false): words.plural("{date} {time} on {channel}, started {count} minute ago",
                                         "{date} {time} on {channel}, started {count} minutes ago", count: -minutes, values)
        case (0, true): words("{time} on {channel}, starting now", values)
        case (0, false): words("{date} {time} on {channel}, starting now", values)
        case (_, true): words.plural("{time} on {channel}, in {count} minute", "{time} on {channel}, in {count} minutes", count: minutes, values)
        case (_, false): words.plural("{date} {time} on {channel}, in {count} minute", "{date} {time} on {channel}, in {count} minutes",
                                      count: minutes, values)
        }
        self.init(title: what.title, body: body, link: site.map { $0 + "/reminders" },
                  id: "tvguide-reminder-\(reminder.id.rawValue)-\(channel.rawValue)", reminder: reminder)
    }

    /// What "send a test" sends, in `words`' language.
    public static func test(to channel: DeliveryChannel, at instant: Date, words: Localizer) -> ReminderMessage {
        ReminderMessage(title: words("tvguide test"), body: words("Reminders for {channel} arrive like this.", ["channel": channel.what.name]),
                        link: nil, id: "tvguide-test-\(channel.id.rawValue)-\(instant.unixSeconds)", reminder: nil)
    }
}
