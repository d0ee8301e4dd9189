import Foundation
@testable import GuideCore
import Testing

@Suite struct BroadcastDayTests {
    let london = TimeZone(identifier: "Europe/London")!

    @Test func aDayRunsFromItsStartHourToTheNextDays() throws {
        let day = try #require(BroadcastDay("2026-02-15", zone: london, startHour: 5))
        #expect(CivilTime.iso8601(day.window.start) == "2026-02-15T05:00:00Z")
        #expect(CivilTime.iso8601(day.window.end) == "2026-02-16T05:00:00Z")
        #expect(day.adding(days: 1).description == "2026-02-16")
        #expect(day.adding(days: -15).description == "2026-01-31")
    }

    @Test func theHourBeforeTheStartBelongsToThePreviousDay() {
        let late = Date(timeIntervalSince1970: 1_771_207_200)  // 2026-02-16 02:00 in London
        #expect(BroadcastDay(containing: late, zone: london, startHour: 5).description == "2026-02-15")
        #expect(BroadcastDay(containing: late, zone: london, startHour: 0).description == "2026-02-16")
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!  // 11:00 there
        #expect(BroadcastDay(containing: late, zone: tokyo, startHour: 5).description == "2026-02-16")
    }

    @Test(arguments: [("2026-03-29", 23.0), ("2026-10-25", 25.0), ("2026-06-01", 24.0)])
    func daysWhenTheClocksChangeAreShorterOrLonger(date: String, hours: Double) throws {
        let day = try #require(BroadcastDay(date, zone: london, startHour: 0))
        #expect(day.window.duration == hours * 3600)
    }

    @Test func notADateIsNil() {
        for text in ["2026-02-30", "2026-13-01", "yesterday", "2026-2-1", ""] {
            #expect(BroadcastDay(text, zone: london, startHour: 5) == nil, "\(text)")
        }
    }

    @Test func theDaysCoveringListings() throws {
        let coverage = TimeWindow(start: Date(timeIntervalSince1970: 1_771_027_200),  // 2026-02-14 00:00Z
                                  end: Date(timeIntervalSince1970: 1_771_304_400))    // 2026-02-17 05:00Z
        let days = BroadcastDay.days(covering: coverage, zone: TimeZone(identifier: "UTC")!, startHour: 5)
        #expect(days.map(\.description) == ["2026-02-13", "2026-02-14", "2026-02-15", "2026-02-16"])
    }
}

@Suite struct GenreTests {
    @Test(arguments: [
        (["News-Current Affairs"], Genre.news), (["Kids-Family"], .children), (["Sports"], .sport), (["English Movies"], .film),
        (["Factual-Documentary"], .documentary), (["Hindi Entertainment"], .entertainment), (["Drama"], .drama),
        (["Nachrichten"], .news), (["Spielfilm"], .film), (["Kinder", "Animation"], .children), (["sports stuff"], .sport),
        (["Lifestyle"], .entertainment), (["Music"], .music), (["Unknowable"], .other), ([], .other),
        (["Unknowable", "Comedy"], .entertainment),
    ])
    func categoriesNameAGenre(categories: [String], genre: Genre) {
        #expect(Genre(categories: categories) == genre)
        #expect(Genre(categories: categories) == genre)   // read again: the kept answer
    }

    /// Categories past the most kept are read afresh, and every one still names its genre, a category that names none
    /// among them.
    @Test func manyCategoriesAreReadAlike() {
        let categories = (0..<(Genre.mostKept * 2 + 7)).map { $0 % 3 == 0 ? "Thing \($0)" : "Sports \($0)" }
        for _ in 0..<2 {
            #expect(categories.allSatisfy {
                Genre(categories: [$0, "Drama"]) == ($0.hasPrefix("Thing") ? .drama : .sport)
            })
        }
    }
}

@Suite struct SignInThrottleTests {
    @Test func fiveFreeTriesThenDoublingWaitsUpToAnHour() {
        let throttle = SignInThrottle().addressAndName
        #expect((0...4).map { throttle.wait(afterFailures: $0) } == [TimeInterval?](repeating: nil, count: 5))
        #expect(throttle.wait(afterFailures: 5) == 30)
        #expect(throttle.wait(afterFailures: 6) == 60)
        #expect(throttle.wait(afterFailures: 8) == 240)
        #expect(throttle.wait(afterFailures: 40) == 3600)
        #expect(throttle.wait(afterFailures: .max) == 3600)
        // Every address together: at most 55 guesses at one name in the first hour of an attack.
        let shared = SignInThrottle().name
        var elapsed: TimeInterval = 0, guesses = 0
        while elapsed < 3600 { guesses += 1; elapsed += shared.wait(afterFailures: guesses) ?? 0 }
        #expect(guesses == 55)
    }

    @Test func pinsAndPasswordsHaveRules() {
        #expect(Profile.problem(with: "1234", as: .pin) == nil)
        #expect(Profile.problem(with: "123", as: .pin) != nil)
        #expect(Profile.problem(with: "123456789", as: .pin) != nil)
        #expect(Profile.problem(with: "12a4", as: .pin) != nil)
        #expect(Profile.problem(with: "short", as: .password) != nil)
        #expect(Profile.problem(with: "long enough", as: .password) == nil)
        #expect(Profile.problem(withName: "  ") != nil)
        #expect(Profile.problem(withName: "Ada") == nil)
    }
}
