import Foundation
import GuideCore
import GuideStore

/// Saved searches' matches become reminders: every programme whose title holds the search's words (on its channels,
/// if it names some) that has not started and starts within two weeks, at the search's lead time. Run after every
/// import (serve watches the listings' generation) and when a search is saved; each match is reminded once, and one
/// the profile cancelled stays cancelled.
public struct SavedSearchReminders: Sendable {
    public typealias Store = ListingStore & ReminderStore

    public let store: any Store

    public init(store: any Store) {
        self.store = store
    }

    /// How far ahead matches are reminded.
    public static let reach: TimeInterval = 14 * 86_400
    /// The most matches one search looks at in a run (by start, from the earliest in the listings).
    public static let mostMatches = 500

    /// Runs `profile`'s searches (every profile's when nil) at `instant`; how many reminders it added.
    @discardableResult
    public func run(for profile: ProfileID? = nil, at instant: Date) async throws -> Int {
        let searches = try await store.savedSearches(of: profile)
        guard !searches.isEmpty else { return 0 }
        let names = Dictionary(try await store.channels().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var added = 0
        for search in searches {
            for match in try await matches(of: search, at: instant) {
                let programme = match.programme
                do {
                    if try await store.addReminderIfNew(
                        NewReminder(profile: search.what.profile, kind: .search, channel: programme.channel,
                                    channelName: names[programme.channel] ?? programme.channel.rawValue, title: programme.title,
                                    start: programme.start, stop: match.end, leadMinutes: search.what.leadMinutes), at: instant) != nil {
                        added += 1
                    }
                } catch let error as StoreError where error.code == .invalid {
                    break   // The profile has as many reminders waiting as it may; the next run tries again.
                }
            }
        }
        return added
    }

    /// What `search` finds at `instant`: programmes whose title holds its words (on its channels, if it names some)
    /// that have not started and start within ``reach``, at most ``mostMatches`` looked at.
    public func matches(of search: SavedSearch, at instant: Date) async throws -> [StoredProgramme] {
        let query = SearchQuery([search.what.words], scope: .title, limit: Self.mostMatches)
        guard !query.terms.isEmpty else { return [] }
        let channels = Set(search.what.channels)
        return try await store.search(query).filter { match in
            match.programme.start > instant && match.programme.start <= instant.addingTimeInterval(Self.reach)
                && (channels.isEmpty || channels.contains(match.programme.channel))
        }
    }
}
