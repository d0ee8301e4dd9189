import Foundation
import GuideCore

/// Keeps waiting reminders with the listings when they change (an import, a source removed or reprioritised), in
/// the same transaction: a reminder follows its programme when the programme moved (the same title on the same
/// channel, the nearest start within ``reach``), and is cancelled with a note when the listings now show something
/// else at its time. Where the listings say nothing about its time any more, it is kept as it was. Episode reminders
/// follow TVmaze, not the listings.
package enum ReminderFollow {
    /// How far a programme may move and still be the same airing.
    package static let reach: Int64 = 12 * 3600

    /// Follows the waiting reminders on the channels (by key) whose visible listings changed; how many it moved or
    /// cancelled.
    @discardableResult
    package static func follow(_ db: some SQLStatements, channels: [Int64], at instant: Date) async throws -> (moved: Int, cancelled: Int) {
        guard !channels.isEmpty else { return (0, 0) }
        let pending = try await db.rows("""
            SELECT r.id, r.profile_id, r.channel_id, r.title, r.start, r.stop, r.lead_minutes, c.key
            FROM reminder r JOIN channel c ON c.id = r.channel_id
            WHERE r.state = \(Reminder.State.pending.rawValue) AND r.kind <> \(NewReminder.Kind.episode.rawValue)
              AND c.key IN \(keys: channels)
            """)
        var moved = 0, cancelled = 0
        for row in pending {
            let id: Int64 = try row.value(0), profile: Int64 = try row.value(1), channel: String = try row.value(2)
            let title: String = try row.value(3), start: Int64 = try row.value(4), stop: Int64 = try row.value(5)
            let lead: Int64 = try row.value(6), key: Int64 = try row.value(7)
            // The nearest of the channel's programmes within reach with the same title, which a row keeps in its
            // details (v40): a day either side is some dozens of rows, read only for a waiting reminder.
            let nearest = try await db.rows("""
                SELECT start, stop, details FROM programme
                WHERE channel_key = \(key) AND hidden = \(false)
                  AND start >= \(start - reach) AND start <= \(start + reach)
                ORDER BY abs(start - \(start)), start
                """).first { row in try row.value(2, as: Data.self).withUnsafeBytes(DetailsCodec.title(of:)) == title }
            if let nearest {
                let newStart: Int64 = try nearest.value(0), newStop: Int64 = try nearest.value(1)
                guard newStart != start || newStop != stop else { continue }
                let taken = try await db.value("""
                    SELECT 1 FROM reminder WHERE profile_id = \(profile) AND channel_id = \(channel) AND start = \(newStart) AND title = \(title)
                      AND id <> \(id)
                    """, as: Int64.self) != nil
                if taken {
                    try await cancel(db, id, note: Sentence(saying: "the listings moved it onto another reminder of the same airing"), at: instant)
                    cancelled += 1
                } else {
                    let note = newStart == start ? Sentence(saying: "the listings changed its end")
                        : Sentence(saying: "the listings moved it from {start}", ["start": CivilTime.iso8601(Date(unixSeconds: start))])
                    try await db.execute("""
                        UPDATE reminder SET start = \(newStart), stop = \(newStop), due_at = \(newStart - lead * 60),
                            note = \(note.stored)
                        WHERE id = \(id)
                        """)
                    moved += 1
                }
            } else if try await db.value("""
                SELECT 1 FROM programme WHERE channel_key = \(key) AND hidden = \(false) AND start < \(stop) AND stop > \(start) LIMIT 1
                """, as: Int64.self) != nil {
                try await cancel(db, id, note: Sentence(saying: "no longer in the listings: something else is on then"), at: instant)
                cancelled += 1
            }
        }
        return (moved, cancelled)
    }

    private static func cancel(_ db: some SQLStatements, _ id: Int64, note: Sentence, at instant: Date) async throws {
        try await db.execute("""
            UPDATE reminder SET state = \(Reminder.State.cancelled.rawValue), note = \(note.stored), finished_at = \(instant.unixSeconds),
                lease_owner = NULL, lease_until = 0
            WHERE id = \(id)
            """)
    }
}
