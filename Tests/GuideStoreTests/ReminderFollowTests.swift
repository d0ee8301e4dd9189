import Foundation
import GuideCore
import GuideStore
import Testing

/// Waiting reminders follow the listings when a refresh changes them: moved with their programme, cancelled when
/// something else is on at their time, kept when the listings no longer say anything about it.
@Suite struct ReminderFollowTests {
    static let t0 = Date(timeIntervalSince1970: 1_704_124_800)   // 2024-01-01 16:00 UTC

    @Test func remindersFollowMovesAndCancellations() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        try await fixture.importXML(StoreFixture.xml([
            ("bbc1.uk", "20240101200000", "20240101210000", "The Film"),
            ("bbc1.uk", "20240101210000", "20240101220000", "News"),
            ("bbc1.uk", "20240102200000", "20240102210000", "Quiz"),
        ]))
        let profile = try await store.createProfile(name: "Sam", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        func remind(_ title: String, _ start: String, _ stop: String, lead: Int = 10) async throws -> Reminder {
            try await store.addReminder(NewReminder(profile: profile.id, kind: .programme, channel: ChannelID("bbc1.uk"), channelName: "BBC One",
                                                    title: title, start: try #require(CivilTime.parseISO8601(start)),
                                                    stop: try #require(CivilTime.parseISO8601(stop)), leadMinutes: lead), at: Self.t0)
        }
        let film = try await remind("The Film", "2024-01-01T20:00:00Z", "2024-01-01T21:00:00Z")
        let news = try await remind("News", "2024-01-01T21:00:00Z", "2024-01-01T22:00:00Z")
        let quiz = try await remind("Quiz", "2024-01-02T20:00:00Z", "2024-01-02T21:00:00Z")

        // The refresh moves the film half an hour later, replaces the news with a match, and covers only the 1st.
        try await fixture.importXML(StoreFixture.xml([
            ("bbc1.uk", "20240101203000", "20240101213000", "The Film"),
            ("bbc1.uk", "20240101213000", "20240101230000", "Football"),
        ]))
        let all = try await store.reminders(of: profile.id, in: Set(Reminder.State.allCases), limit: 10)
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        let moved = try #require(byID[film.id])
        #expect(moved.state == .pending && moved.what.start == CivilTime.parseISO8601("2024-01-01T20:30:00Z"))
        #expect(moved.what.due == CivilTime.parseISO8601("2024-01-01T20:20:00Z"))
        #expect(moved.note?.description == "the listings moved it from 2024-01-01T20:00:00Z")
        #expect(byID[news.id]?.state == .cancelled && byID[news.id]?.note?.description == "no longer in the listings: something else is on then")
        // The 2nd is outside what the refresh covered: its quiz is still listed, and its reminder waits as it was.
        #expect(byID[quiz.id]?.state == .pending && byID[quiz.id]?.what.start == CivilTime.parseISO8601("2024-01-02T20:00:00Z"))

        // A moved reminder is claimed at its new time, not the old one.
        #expect(try await store.claimDueReminders(at: try #require(CivilTime.parseISO8601("2024-01-01T19:55:00Z")), owner: "a",
                                                  leaseUntil: Self.t0.addingTimeInterval(1e9), limit: 10).isEmpty)
        #expect(try await store.claimDueReminders(at: try #require(CivilTime.parseISO8601("2024-01-01T20:20:00Z")), owner: "a",
                                                  leaseUntil: Self.t0.addingTimeInterval(1e9), limit: 10).map(\.id) == [film.id])
    }
}
