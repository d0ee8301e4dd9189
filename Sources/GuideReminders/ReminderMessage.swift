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

    /// The message for `reminder` sent at `instant` to a viewer in `clock`'s zone, linking to the guide at `site`.
    public init(_ reminder: Reminder, channel: DeliveryChannelID, at instant: Date, clock: ViewerClock, site: String?) {
        let what = reminder.what
        let minutes = Int((what.start.timeIntervalSince(instant) / 60).rounded())
        let when = switch minutes {
        case ..<0: "started \(-minutes) minute\(minutes == -1 ? "" : "s") ago"
        case 0: "starting now"
        default: "in \(minutes) minute\(minutes == 1 ? "" : "s")"
        }
        let day = clock.day(containing: what.start) == clock.day(containing: instant) ? "" : clock.date(what.start) + " "
        self.init(title: what.title, body: "\(day)\(clock.time(what.start)) on \(what.channelName), \(when)",
                  link: site.map { $0 + "/reminders" },
                  id: "tvguide-reminder-\(reminder.id.rawValue)-\(channel.rawValue)", reminder: reminder)
    }

    /// What "send a test" sends.
    public static func test(to channel: DeliveryChannel, at instant: Date) -> ReminderMessage {
        ReminderMessage(title: "tvguide test", body: "Reminders for \(channel.what.name) arrive like this.", link: nil,
                        id: "tvguide-test-\(channel.id.rawValue)-\(instant.unixSeconds)", reminder: nil)
    }
}
