import Foundation
import GRDB
import GuideCore
import Testing
@testable import GuideStore
@testable import GuideStoreSQLite

/// Programme ids by the day a programme starts (``DayIDs``), so that a refresh replacing a day rewrites the pages of
/// that day and not pages all through the table.
@Suite struct DayIDsTests {
    static let day: Int64 = 86_400

    /// The `number`th id of `day`'s range.
    static func id(_ day: Int64, _ number: Int64) -> Int64 { (day << DayIDs.dayShift) + number }

    static func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE programme (id INTEGER PRIMARY KEY)") }
        return queue
    }

    @Test func eachDayHasARangeAndItsNextIDFollowsWhatIsStored() throws {
        let queue = try Self.table()
        try queue.write { db in
            // Rows stored before ids went by day, from 1 up: 1970's first day takes the next one past them.
            try db.execute(sql: "INSERT INTO programme (id) VALUES (1), (2), (3)")
            let today: Int64 = 20_788 * Self.day
            try db.execute(sql: "INSERT INTO programme (id) VALUES (?)", arguments: [Self.id(20_788, 41)])
            var ids = try DayIDs(db)
            #expect(try ids.id(startingAt: 0) == 4)
            #expect(try ids.id(startingAt: 600) == 5)
            #expect(try ids.id(startingAt: today) == Self.id(20_788, 42))
            #expect(try ids.id(startingAt: today + Self.day - 1) == Self.id(20_788, 43))
            #expect(try ids.id(startingAt: today + Self.day) == Self.id(20_789, 1))
            #expect(try ids.id(startingAt: today + 3600) == Self.id(20_788, 44))
            // Before 1970 and past the last day with a range: the first and the last day's ranges.
            #expect(try ids.id(startingAt: -Self.day * 400) == 6)
            #expect(try ids.id(startingAt: .max) == Self.id(DayIDs.days.upperBound, 1))
            #expect(try ids.id(startingAt: .min) == 7)
            // Every id below 2^52, held exactly by a JavaScript number.
            #expect(Self.id(DayIDs.days.upperBound, (1 << 32) - 1) < Int64(1) << 52)
        }
    }

    @Test func aDayWhoseRangeIsUsedUpLeavesTheIDToSQLite() throws {
        let queue = try Self.table()
        try queue.write { db in
            try db.execute(sql: "INSERT INTO programme (id) VALUES (?)", arguments: [Self.id(10, (1 << 32) - 2)])
            var ids = try DayIDs(db)
            #expect(try ids.id(startingAt: 10 * Self.day) == Self.id(10, (1 << 32) - 1))
            #expect(try ids.id(startingAt: 10 * Self.day + 60) == nil)
            #expect(try ids.id(startingAt: 11 * Self.day) == Self.id(11, 1))
        }
    }

    @Test func manyDaysAreLookedUpAgainOnceTooManyAreRemembered() throws {
        let queue = try Self.table()
        try queue.write { db in
            var ids = try DayIDs(db)
            let days = Int64(DayIDs.remembered) + 10
            for day in 0..<days {
                let id = try #require(try ids.id(startingAt: day * Self.day))
                try db.execute(sql: "INSERT INTO programme (id) VALUES (?)", arguments: [id])
            }
            // Forgotten and looked up again, each day goes on after its stored rows.
            for day in 0..<days {
                #expect(try ids.id(startingAt: day * Self.day + 1) == Self.id(day, 2))
            }
        }
    }

    /// Through the store: a guide read channel by channel is stored day by day, and a refresh of one day keeps it so.
    @Test func aStoreKeepsEachDaysProgrammesTogether() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-dayids-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let store = try SQLiteListingStore(path: folder + "/guide.sqlite", now: { Date() })
        let first: Int64 = 1_771_113_600   // 2026-02-15 00:00 UTC.
        func guide(_ title: String) -> @Sendable (ListingSink) -> Void {
            { sink in
                for channel in 0..<5 {
                    for slot in 0..<(3 * 12) {   // Three days of two-hour programmes, channel by channel.
                        let start = Date(unixSeconds: first + Int64(slot) * 7200)
                        sink.add(Programme(channel: ChannelID("c\(channel).tv"), start: start, stop: start + 7200,
                                           titles: [LocalizedText("\(title) \(slot)")]), line: nil)
                    }
                }
            }
        }
        func days() async throws -> [(day: Int64, id: Int64)] {
            try await store.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT start / 86400, id FROM programme ORDER BY id").map { ($0[0], $0[1]) }
            }
        }
        _ = try await store.importListings(from: SourceName("guide"), guide("Show"))
        let stored = try await days()
        #expect(stored.count == 180)
        #expect(stored.map(\.day) == stored.map(\.day).sorted(), "rows in id order go day by day")
        #expect(stored.allSatisfy { $0.id >> 32 == $0.day })
        _ = try await store.importListings(from: SourceName("guide"), guide("Other"))
        let replaced = try await days()
        #expect(replaced.count == 180 && replaced.map(\.day) == replaced.map(\.day).sorted())
        #expect(Set(replaced.map(\.id)).isDisjoint(with: stored.map(\.id)), "new rows take new ids")
    }
}
