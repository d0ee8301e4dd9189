import Foundation
import GuideCore

/// The ``ReminderStore`` both stores implement, written once over ``SQLStatements``.
extension ReminderStore where Self: SQLBackend {
    public func addReminder(_ new: NewReminder, at instant: Date) async throws -> Reminder {
        try await add(new, at: instant).reminder
    }

    public func addReminderIfNew(_ new: NewReminder, at instant: Date) async throws -> Reminder? {
        let added = try await add(new, at: instant)
        return added.isNew ? added.reminder : nil
    }

    private func add(_ new: NewReminder, at instant: Date) async throws -> (reminder: Reminder, isNew: Bool) {
        try await transaction { db in
            if let existing = try await db.rows("""
                SELECT \(raw: reminderColumns) FROM reminder
                WHERE profile_id = \(new.profile.rawValue) AND channel_id = \(new.channel.rawValue) AND start = \(new.start.unixSeconds)
                  AND title = \(new.title)
                """).first {
                return (try reminder(existing), false)
            }
            let pending = try await db.value("""
                SELECT count(*) FROM reminder WHERE profile_id = \(new.profile.rawValue) AND state = \(Reminder.State.pending.rawValue)
                """, as: Int64.self) ?? 0
            guard pending < Reminder.mostPending else {
                throw StoreError(.invalid, saying: "a profile may have {count} reminders waiting; cancel some first", ["count": "\(Reminder.mostPending)"])
            }
            guard let row = try await db.rows("""
                INSERT INTO reminder (profile_id, kind, channel_id, channel_name, title, start, stop, lead_minutes, due_at, state,
                                      attempts, lease_until, created_at)
                VALUES (\(new.profile.rawValue), \(new.kind.rawValue), \(new.channel.rawValue), \(new.channelName), \(new.title),
                        \(new.start.unixSeconds), \(new.stop.unixSeconds), \(new.leadMinutes), \(new.due.unixSeconds),
                        \(Reminder.State.pending.rawValue), 0, 0, \(instant.unixSeconds))
                RETURNING \(raw: reminderColumns)
                """).first else { throw StoreError(.failed, "the reminder was not stored") }
            return (try reminder(row), true)
        }
    }

    public func reminders(of profile: ProfileID, in states: Set<Reminder.State>, limit: Int) async throws -> [Reminder] {
        try await reading { db in
            var found: [Reminder] = []
            // One query per state keeps each on the (profile, state, due) index; pending ones soonest first.
            for state in Reminder.State.allCases where states.contains(state) {
                let rows = state == .pending
                    ? try await db.rows("""
                        SELECT \(raw: reminderColumns) FROM reminder WHERE profile_id = \(profile.rawValue) AND state = \(state.rawValue)
                        ORDER BY due_at, id LIMIT \(limit)
                        """)
                    : try await db.rows("""
                        SELECT \(raw: reminderColumns) FROM reminder WHERE profile_id = \(profile.rawValue) AND state = \(state.rawValue)
                        ORDER BY finished_at DESC, id DESC LIMIT \(limit)
                        """)
                found += try rows.map(reminder)
            }
            return Array(found.prefix(limit))
        }
    }

    public func cancelReminder(_ id: ReminderID, of profile: ProfileID, at instant: Date) async throws {
        try await transaction { db in
            guard try await db.execute("""
                UPDATE reminder SET state = \(Reminder.State.cancelled.rawValue), note = \("cancelled"), finished_at = \(instant.unixSeconds)
                WHERE id = \(id.rawValue) AND profile_id = \(profile.rawValue) AND state = \(Reminder.State.pending.rawValue)
                """) == 1 else { throw StoreError(.notFound, saying: "no reminder {id} is waiting", ["id": "\(id.rawValue)"]) }
        }
    }

    public func dropReminder(_ id: ReminderID) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM reminder WHERE id = \(id.rawValue) AND state = \(Reminder.State.pending.rawValue)")
        }
    }

    public func changeLead(of id: ReminderID, to minutes: Int) async throws {
        let lead = Bounded.clamped(minutes, to: Reminder.leadRange)
        try await transaction { db in
            try await db.execute("""
                UPDATE reminder SET lead_minutes = \(lead), due_at = start - \(lead * 60)
                WHERE id = \(id.rawValue) AND state = \(Reminder.State.pending.rawValue)
                """)
        }
    }

    public func claimDueReminders(at instant: Date, owner: String, leaseUntil: Date, limit: Int) async throws -> [Reminder] {
        let now = instant.unixSeconds, pending = Reminder.State.pending.rawValue
        return try await transaction { db in
            // Instances claiming at once pass over each other's rows; the outer conditions repeat the inner ones, so a
            // row another took while this one read is left to it (PostgreSQL re-checks them on the row's new version).
            try await db.rows("""
                UPDATE reminder SET lease_owner = \(owner), lease_until = \(leaseUntil.unixSeconds)
                WHERE id IN (SELECT id FROM reminder WHERE state = \(pending) AND due_at <= \(now) AND lease_until <= \(now)
                             ORDER BY due_at, id LIMIT \(limit)\(.claimRows))
                  AND state = \(pending) AND due_at <= \(now) AND lease_until <= \(now)
                RETURNING \(raw: reminderColumns)
                """).map(reminder).sorted { ($0.what.due, $0.id.rawValue) < ($1.what.due, $1.id.rawValue) }
        }
    }

    public func finishReminder(_ id: ReminderID, as state: Reminder.State, note: Sentence?, at instant: Date) async throws {
        try await transaction { db in
            try await db.execute("""
                UPDATE reminder SET state = \(state.rawValue), note = \(note?.stored), finished_at = \(instant.unixSeconds), lease_owner = NULL,
                    lease_until = 0
                WHERE id = \(id.rawValue)
                """)
        }
    }

    public func retryReminder(_ id: ReminderID, at retryAt: Date, note: Sentence) async throws {
        try await transaction { db in
            try await db.execute("""
                UPDATE reminder SET attempts = attempts + 1, note = \(note.stored), lease_owner = NULL, lease_until = \(retryAt.unixSeconds)
                WHERE id = \(id.rawValue)
                """)
        }
    }

    public func deliveries(of id: ReminderID) async throws -> [DeliveryChannelID: Bool] {
        try await reading { db in
            var done: [DeliveryChannelID: Bool] = [:]
            for row in try await db.rows("SELECT channel_id, delivered FROM reminder_delivery WHERE reminder_id = \(id.rawValue)") {
                done[DeliveryChannelID(rawValue: try row.value(0))] = try row.value(1, as: Bool.self)
            }
            return done
        }
    }

    public func recordDelivery(_ delivery: Delivery, givingUp: Bool) async throws {
        let at = delivery.at.unixSeconds, delivered = delivery.error == nil
        try await transaction { db in
            if let reminder = delivery.reminder, delivered || givingUp {
                try await db.execute("""
                    INSERT INTO reminder_delivery (reminder_id, channel_id, delivered, at)
                    VALUES (\(reminder.rawValue), \(delivery.channel.rawValue), \(delivered), \(at)) ON CONFLICT DO NOTHING
                    """)
            }
            if delivered {
                try await db.execute("""
                    UPDATE delivery_channel SET last_sent_at = \(at), last_error = NULL WHERE id = \(delivery.channel.rawValue)
                    """)
            } else {
                try await db.execute("""
                    UPDATE delivery_channel SET last_error = \(delivery.error?.stored) WHERE id = \(delivery.channel.rawValue)
                    """)
            }
            try await db.execute("""
                INSERT INTO delivery_log (profile_id, channel_id, reminder_id, title, at, error)
                VALUES (\(delivery.profile.rawValue), \(delivery.channel.rawValue), \(delivery.reminder?.rawValue), \(delivery.title), \(at),
                        \(delivery.error?.stored))
                """)
            // The log keeps the newest entries of each profile.
            try await db.execute("""
                DELETE FROM delivery_log WHERE profile_id = \(delivery.profile.rawValue) AND id <= (
                    SELECT id FROM delivery_log WHERE profile_id = \(delivery.profile.rawValue) ORDER BY id DESC LIMIT 1 OFFSET \(Delivery.kept))
                """)
        }
    }

    public func addSavedSearch(_ new: NewSavedSearch, at instant: Date) async throws -> SavedSearch {
        try await transaction { db in
            let count = try await db.value("SELECT count(*) FROM saved_search WHERE profile_id = \(new.profile.rawValue)", as: Int64.self) ?? 0
            guard count < SavedSearch.mostPerProfile else {
                throw StoreError(.invalid, saying: "a profile may have {count} saved searches; remove one first", ["count": "\(SavedSearch.mostPerProfile)"])
            }
            guard let id = try await db.value("""
                INSERT INTO saved_search (profile_id, words, channels, lead_minutes, created_at, records)
                VALUES (\(new.profile.rawValue), \(new.words), \(new.channels.map(\.rawValue).joined(separator: "\n")), \(new.leadMinutes),
                        \(instant.unixSeconds), \(new.records ? Int64(1) : Int64(0)))
                RETURNING id
                """, as: Int64.self) else { throw StoreError(.failed, "the saved search was not stored") }
            return SavedSearch(id: id, what: new, created: Date(unixSeconds: instant.unixSeconds))
        }
    }

    public func savedSearches(of profile: ProfileID?) async throws -> [SavedSearch] {
        try await reading { db in
            let rows = if let profile {
                try await db.rows("SELECT \(raw: Self.savedSearchColumns) FROM saved_search WHERE profile_id = \(profile.rawValue) ORDER BY id")
            } else {
                try await db.rows("SELECT \(raw: Self.savedSearchColumns) FROM saved_search ORDER BY id")
            }
            return try rows.map { row in
                let channels: String = try row.value(3)
                return SavedSearch(id: try row.value(0),
                                   what: NewSavedSearch(profile: ProfileID(rawValue: try row.value(1)), words: try row.value(2),
                                                        channels: channels.split(separator: "\n").map { ChannelID(String($0)) },
                                                        leadMinutes: try row.value(4), records: try row.value(6, as: Int64.self) != 0),
                                   created: Date(unixSeconds: try row.value(5)))
            }
        }
    }

    private static var savedSearchColumns: StaticString { "id, profile_id, words, channels, lead_minutes, created_at, records" }

    public func removeSavedSearch(_ id: Int64, of profile: ProfileID) async throws {
        try await transaction { db in
            guard try await db.execute("DELETE FROM saved_search WHERE id = \(id) AND profile_id = \(profile.rawValue)") == 1 else {
                throw StoreError(.notFound, saying: "no saved search {id}", ["id": "\(id)"])
            }
        }
    }

    public func serverSecret(named name: String, make: @Sendable () -> String, at instant: Date) async throws -> String {
        if let kept = try await reading({ db in try await db.value("SELECT value FROM server_secret WHERE name = \(name)", as: String.self) }) {
            return kept
        }
        let made = make()
        return try await transaction { db in
            try await db.execute("""
                INSERT INTO server_secret (name, value, created_at) VALUES (\(name), \(made), \(instant.unixSeconds)) ON CONFLICT DO NOTHING
                """)
            guard let kept = try await db.value("SELECT value FROM server_secret WHERE name = \(name)", as: String.self) else {
                throw StoreError(.failed, "the server's \(name) was not kept")
            }
            return kept
        }
    }

    public func addDeliveryChannel(_ new: NewDeliveryChannel, at instant: Date) async throws -> DeliveryChannel {
        try await transaction { db in
            let count = try await db.value("SELECT count(*) FROM delivery_channel WHERE profile_id = \(new.profile.rawValue)",
                                           as: Int64.self) ?? 0
            guard count < DeliveryChannel.mostPerProfile else {
                throw StoreError(.invalid, saying: "a profile may have {count} delivery channels; remove one first", ["count": "\(DeliveryChannel.mostPerProfile)"])
            }
            guard let row = try await db.rows("""
                INSERT INTO delivery_channel (profile_id, kind, name, target, secret, created_at)
                VALUES (\(new.profile.rawValue), \(new.kind.rawValue), \(new.name), \(new.target), \(new.secret), \(instant.unixSeconds))
                RETURNING \(raw: channelColumns)
                """).first else { throw StoreError(.failed, "the delivery channel was not stored") }
            return try channel(row)
        }
    }

    public func deliveryChannels(of profile: ProfileID) async throws -> [DeliveryChannel] {
        try await reading { db in
            try await db.rows("SELECT \(raw: channelColumns) FROM delivery_channel WHERE profile_id = \(profile.rawValue) ORDER BY id")
                .map(channel)
        }
    }

    public func removeDeliveryChannel(_ id: DeliveryChannelID, of profile: ProfileID) async throws {
        try await transaction { db in
            guard try await db.execute("""
                DELETE FROM delivery_channel WHERE id = \(id.rawValue) AND profile_id = \(profile.rawValue)
                """) == 1 else { throw StoreError(.notFound, saying: "no delivery channel {id}", ["id": "\(id.rawValue)"]) }
        }
    }

    public func deliveryLog(of profile: ProfileID, limit: Int) async throws -> [Delivery] {
        try await reading { db in
            try await db.rows("""
                SELECT profile_id, channel_id, reminder_id, title, at, error FROM delivery_log WHERE profile_id = \(profile.rawValue)
                ORDER BY id DESC LIMIT \(limit)
                """).map { row in
                Delivery(profile: ProfileID(rawValue: try row.value(0)), channel: DeliveryChannelID(rawValue: try row.value(1)),
                         reminder: try row.value(2, as: Int64?.self).map(ReminderID.init(rawValue:)), title: try row.value(3),
                         at: Date(unixSeconds: try row.value(4)), error: try row.value(5, as: String?.self).map(Sentence.init(stored:)))
            }
        }
    }

    private var reminderColumns: StaticString {
        """
        id, profile_id, kind, channel_id, channel_name, title, start, stop, lead_minutes, state, note, attempts, created_at, \
        finished_at
        """
    }

    private func reminder(_ row: SQLRow) throws -> Reminder {
        guard let kind = NewReminder.Kind(rawValue: try row.value(2)), let state = Reminder.State(rawValue: try row.value(9)) else {
            throw StoreError(.failed, "a reminder's kind or state is not one tvguide knows")
        }
        let what = NewReminder(profile: ProfileID(rawValue: try row.value(1)), kind: kind, channel: ChannelID(try row.value(3)),
                               channelName: try row.value(4), title: try row.value(5), start: Date(unixSeconds: try row.value(6)),
                               stop: Date(unixSeconds: try row.value(7)), leadMinutes: try row.value(8))
        return Reminder(id: ReminderID(rawValue: try row.value(0)), what: what, state: state, note: try row.value(10, as: String?.self).map(Sentence.init(stored:)),
                        attempts: try row.value(11), created: Date(unixSeconds: try row.value(12)),
                        finished: try row.value(13, as: Int64?.self).map(Date.init(unixSeconds:)))
    }

    private var channelColumns: StaticString { "id, profile_id, kind, name, target, secret, created_at, last_sent_at, last_error" }

    private func channel(_ row: SQLRow) throws -> DeliveryChannel {
        guard let kind = NewDeliveryChannel.Kind(rawValue: try row.value(2)) else {
            throw StoreError(.failed, "a delivery channel's kind is not one tvguide knows")
        }
        let what = NewDeliveryChannel(profile: ProfileID(rawValue: try row.value(1)), kind: kind, name: try row.value(3),
                                      target: try row.value(4), secret: try row.value(5))
        return DeliveryChannel(id: DeliveryChannelID(rawValue: try row.value(0)), what: what, created: Date(unixSeconds: try row.value(6)),
                               lastSent: try row.value(7, as: Int64?.self).map(Date.init(unixSeconds:)), lastError: try row.value(8, as: String?.self).map(Sentence.init(stored:)))
    }
}
