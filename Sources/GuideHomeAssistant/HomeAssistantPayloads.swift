import Crypto
import Foundation
import GuideCore
import GuideStore

/// What tvguide publishes for Home Assistant (``HomeAssistantBridge``): MQTT discovery configurations, states and
/// their attributes, reminder events and command answers, as JSON.
enum HomeAssistantPayloads {
    /// The device every entity belongs to.
    static var device: [String: Any] { ["identifiers": ["tvguide"], "name": "tvguide", "manufacturer": "tvguide", "model": "TV guide"] }

    /// A channel's id as a topic level and object id: letters, digits, `_` and `-` kept (at most 40), and a short hash of
    /// the whole id, so two ids that differ only in other characters stay two.
    static func objectID(_ channel: ChannelID) -> String {
        let kept = String(channel.rawValue.unicodeScalars.map { scalar -> Character in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-")) ? Character(scalar) : "_"
        }.prefix(40)).lowercased()
        let hash = SHA256.hash(data: Data(channel.rawValue.utf8)).prefix(3).map { String(format: "%02x", $0) }.joined()
        return "channel_\(kept)_\(hash)"
    }

    /// The sensor's discovery configuration for `channel`.
    static func sensor(_ channel: Channel, object: String, base: String) -> String {
        json([
            "name": channel.name, "unique_id": "tvguide_\(object)", "object_id": "tvguide_\(object)",
            "state_topic": "\(base)/channel/\(object)/state", "json_attributes_topic": "\(base)/channel/\(object)/attributes",
            "availability_topic": "\(base)/status", "icon": "mdi:television-classic", "device": device,
        ])
    }

    /// The reminders' event entity.
    static func reminderEvent(base: String) -> String {
        json([
            "name": "Reminder", "unique_id": "tvguide_reminder", "object_id": "tvguide_reminder", "state_topic": "\(base)/event/reminder",
            "event_types": ["reminder"], "availability_topic": "\(base)/status", "icon": "mdi:bell-ring", "device": device,
        ])
    }

    /// A channel's state (the title on now, at most 255 characters as Home Assistant keeps; "Off air" when nothing)
    /// and its attributes.
    static func state(_ entry: NowNext, channel: Channel, page: (@Sendable (ProgrammeID) -> String)?) -> (state: String, attributes: String) {
        var attributes: [String: Any] = ["channel": channel.name, "channel_id": channel.id.rawValue]
        if let number = channel.number { attributes["number"] = number }
        if let now = entry.now {
            attributes.merge(describe(now, page: page), uniquingKeysWith: { _, new in new })
        }
        if let next = entry.next {
            attributes["next"] = describe(next, page: page)
        }
        let title = entry.now?.programme.title ?? "Off air"
        return (String(title.prefix(255)), json(attributes))
    }

    static func describe(_ stored: StoredProgramme, page: (@Sendable (ProgrammeID) -> String)?) -> [String: Any] {
        let programme = stored.programme
        var fields: [String: Any] = ["title": programme.title, "start": stamp(programme.start), "stop": stamp(stored.end), "programme_id": stored.id.rawValue]
        if let subTitle = programme.subTitle { fields["subtitle"] = subTitle }
        if let episode = programme.episodeLabel { fields["episode"] = episode }
        if let season = programme.numbering?.season { fields["season"] = season }
        if let number = programme.numbering?.episode { fields["episode_number"] = number }
        if let page { fields["url"] = page(stored.id) }
        return fields
    }

    /// A reminder's event: what and when, for whom.
    static func reminder(_ reminder: Reminder, profile: String?) -> String {
        let what = reminder.what
        var fields: [String: Any] = ["event_type": "reminder", "title": what.title, "channel": what.channelName, "channel_id": what.channel.rawValue,
                                     "start": stamp(what.start), "stop": stamp(what.stop), "lead_minutes": what.leadMinutes]
        if let profile { fields["profile"] = profile }
        return json(fields)
    }

    static func answer(reminder: Reminder) -> String {
        json(["ok": true, "reminder": reminder.id.rawValue, "title": reminder.what.title, "start": stamp(reminder.what.start)])
    }

    static func answer(recording entry: RecordingEntry) -> String {
        json(["ok": entry.state != .refused, "recording": entry.id, "title": entry.what.title, "state": entry.state.rawValue,
              "status": entry.status?.description ?? "", "start": stamp(entry.what.start)])
    }

    static func answer(error: String) -> String {
        json(["ok": false, "error": error])
    }

    static func stamp(_ date: Date) -> String { date.formatted(.iso8601) }

    static func json(_ object: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
