import Foundation
import GuideCore
import GuideHTTP
import GuideStore
import NIOCore
import Synchronization

/// The TVmaze API (https://www.tvmaze.com/api), politely: every request waits for a slot of the shared
/// ``RateLimiter`` (20 per 10 s), a 429 or 5xx is retried up to 3 tries in all (after `Retry-After` when given,
/// else 1 s, 2 s), and answers are kept in a ``ResponseCache`` for the time TVmaze's own caches keep them (an hour;
/// a day for the show index and the full schedule). A cached answer is not asked for again within that time; an
/// older one is still used when TVmaze cannot be reached, so followed shows work offline.
///
/// URLs are built from ids and the configured base URL, never from the `_links` in answers (they name
/// api.tvmaze.com), so a mirror or a test server can stand in.
public final class TVMazeClient: Sendable {
    /// The show, episode and person ids a request may ask about (TVmaze's run to a few million); others are not asked.
    public static let idRange = 1...999_999_999

    public struct Policy: Sendable {
        /// Tries in all for one request (429, 5xx, dropped connections).
        public var tries = 3
        /// The wait before the second try; doubled before each next one.
        public var backoff: Duration = .seconds(1)
        /// The longest `Retry-After` honoured; longer ones fail the request now.
        public var longestRetryAfter: Duration = .seconds(120)
        /// How long an answer stays fresh: TVmaze's edge cache keeps most for an hour.
        public var freshFor: TimeInterval = 3600
        /// The show index and the full schedule: a day.
        public var indexFreshFor: TimeInterval = 24 * 3600
        /// The largest body read.
        public var largestBody = 32 * 1024 * 1024
        /// Answers kept in the store at most this long, and at most this many bytes of them (the oldest go first),
        /// checked every `pruneEvery` answers stored.
        public var cacheAge: TimeInterval = 30 * 86_400
        public var cacheBytes = 64 * 1024 * 1024
        public var pruneEvery = 100
        /// The longest a request may take, queueing for the limiter and retries included; nil for no limit (the
        /// tracker's background work). Past it the request fails with ``TVMazeError/busy(retryAfter:)``.
        public var deadline: Duration?

        public init() {}

        /// For requests a page makes while someone waits for it: at most 10 s in all, one retry.
        public static var interactive: Policy {
            var policy = Policy()
            policy.tries = 2
            policy.longestRetryAfter = .seconds(3)
            policy.deadline = .seconds(10)
            return policy
        }
    }

    public static let defaultBase = "https://api.tvmaze.com"

    /// The API's address, without a trailing slash.
    public let base: String
    let transport: any HTTPTransport
    let limiter: RateLimiter
    let cache: (any ResponseCache)?
    let policy: Policy
    /// Wall time, for how old a cached answer is.
    let now: @Sendable () -> Date
    /// How long tries wait, and the deadline; tests use one that jumps instead of sleeping.
    let clock: any Clock<Duration>
    /// Answers stored since the cache was last pruned.
    let storedSincePrune = Mutex(0)

    public init(base: String = TVMazeClient.defaultBase, transport: any HTTPTransport,
                limiter: RateLimiter, cache: (any ResponseCache)? = nil, policy: Policy = Policy(),
                now: @escaping @Sendable () -> Date, clock: any Clock<Duration>) {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.transport = transport
        self.limiter = limiter
        self.cache = cache
        self.policy = policy
        self.now = now
        self.clock = clock
    }

    /// The same service for work nobody waits on a page for (history imports): `limit` requests a window of its own,
    /// taken within this client's (so the pages keep the rest of TVmaze's pace however long an import runs), tried and
    /// waited for as background work is (no deadline).
    public func share(of limit: Int) -> TVMazeClient {
        var background = policy
        (background.tries, background.longestRetryAfter, background.deadline) = (Policy().tries, Policy().longestRetryAfter, nil)
        return TVMazeClient(base: base, transport: transport, limiter: RateLimiter(limit: limit, per: limiter.window, clock: clock, within: limiter),
                            cache: cache, policy: background, now: now, clock: clock)
    }

    // MARK: Shows
    // Every answer is mapped to GuideCore's series values (TVMazeMapping.swift) here: nothing past the client sees
    // TVmaze's wire format.

    /// Shows matching `query`, best first; empty when none match.
    public func searchShows(_ query: String) async throws -> [Show] {
        let found: [TVMazeShowResult] = try await list("/search/shows", [("q", query)])
        return found.map { Show($0.show) }
    }

    /// The one show matching `query` best, or nil (TVmaze's 404 with an empty body).
    public func singleSearch(_ query: String, embed: [ShowEmbed] = []) async throws -> Show? {
        let found: TVMazeShow? = try await fetch("/singlesearch/shows", [("q", query)] + Self.embed(embed))
        return found.map(Show.init)
    }

    /// The show TheTVDB knows as `id` (TVmaze answers with a redirect to it), or nil.
    public func show(thetvdb id: Int) async throws -> Show? {
        let found: TVMazeShow? = try await fetch("/lookup/shows", [("thetvdb", String(id))])
        return found.map(Show.init)
    }

    /// The show IMDb knows as `id` (`tt0944947`), or nil.
    public func show(imdb id: String) async throws -> Show? {
        let found: TVMazeShow? = try await fetch("/lookup/shows", [("imdb", id)])
        return found.map(Show.init)
    }

    /// One page of the index of all shows (ids 250·page to 250·page+249); nil past the last page.
    public func showIndex(page: Int) async throws -> [Show]? {
        let found: [TVMazeShow]? = try await fetch("/shows", [("page", String(page))], freshFor: policy.indexFreshFor)
        return found.map { $0.map(Show.init) }
    }

    public enum ShowEmbed: String, Sendable, CaseIterable {
        case episodes, seasons, cast, crew, nextepisode, previousepisode
    }

    /// A show, with what `embed` asks for; nil when there is none.
    public func show(_ id: Int, embed: [ShowEmbed] = []) async throws -> Show? {
        let found: TVMazeShow? = try await fetch("/shows/\(id)", Self.embed(embed))
        return found.map(Show.init)
    }

    /// A show's episodes in air order; specials only when asked for.
    public func episodes(ofShow id: Int, specials: Bool = false) async throws -> [Episode] {
        let found: [TVMazeEpisode] = try await list("/shows/\(id)/episodes", specials ? [("specials", "1")] : [])
        return found.map { Episode($0) }
    }

    public func seasons(ofShow id: Int) async throws -> [Season] {
        let found: [TVMazeSeason] = try await list("/shows/\(id)/seasons", [])
        return found.map(Season.init)
    }

    /// A season's episodes, specials included, with each episode's guest cast and crew when asked for.
    public func episodes(ofSeason id: Int, withGuests: Bool = false) async throws -> [Episode] {
        let found: [TVMazeEpisode] = try await list("/seasons/\(id)/episodes",
                                                    withGuests ? [("embed[]", "guestcast"), ("embed[]", "guestcrew")] : [])
        return found.map { Episode($0) }
    }

    /// Season `season`'s episode `number` of a show, or nil (a 404 with an error body).
    public func episode(ofShow id: Int, season: Int, number: Int) async throws -> Episode? {
        let found: TVMazeEpisode? = try await fetch("/shows/\(id)/episodebynumber", [("season", String(season)), ("number", String(number))])
        return found.map { Episode($0) }
    }

    /// A daily show's episodes on a date.
    public func episodes(ofShow id: Int, on date: CivilDate) async throws -> [Episode] {
        let found: [TVMazeEpisode] = try await list("/shows/\(id)/episodesbydate", [("date", date.description)])
        return found.map { Episode($0) }
    }

    /// The show's other titles, by country (the first ``AlsoKnownAs/mostKept``, names cut to
    /// ``AlsoKnownAs/longestName`` characters; one without a name left out).
    public func akas(ofShow id: Int) async throws -> [AlsoKnownAs] {
        let found: [TVMazeAka] = try await list("/shows/\(id)/akas", [])
        return found.prefix(AlsoKnownAs.mostKept).compactMap { aka in
            guard let name = aka.name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else { return nil }
            let code = aka.country?.code.flatMap { $0.count == 2 && $0.allSatisfy(\.isLetter) ? $0.uppercased() : nil }
            return AlsoKnownAs(name: String(name.prefix(AlsoKnownAs.longestName)), country: code)
        }
    }

    /// The regular cast: each credit's person and character.
    public func cast(ofShow id: Int) async throws -> [Role] {
        let found: [TVMazeCastMember] = try await list("/shows/\(id)/cast", [])
        return found.map(Role.init)
    }

    /// Creators, producers and the like: each credit's person and job.
    public func crew(ofShow id: Int) async throws -> [Role] {
        let found: [TVMazeCrewMember] = try await list("/shows/\(id)/crew", [])
        return found.map(Role.init)
    }

    // MARK: Episodes

    public enum EpisodeEmbed: String, Sendable, CaseIterable {
        case show, guestcast, guestcrew
    }

    /// An episode, with its show and guest cast and crew when asked for; nil when there is none.
    public func episode(_ id: Int, embed: [EpisodeEmbed] = []) async throws -> Episode? {
        let found: TVMazeEpisode? = try await fetch("/episodes/\(id)", embed.map { ("embed[]", $0.rawValue) })
        return found.map { Episode($0) }
    }

    public func guestCast(ofEpisode id: Int) async throws -> [Role] {
        let found: [TVMazeCastMember] = try await list("/episodes/\(id)/guestcast", [])
        return found.map(Role.init)
    }

    /// Directors, writers and the like (each credit's job).
    public func guestCrew(ofEpisode id: Int) async throws -> [Role] {
        let found: [TVMazeGuestCrew] = try await list("/episodes/\(id)/guestcrew", [])
        return found.map(Role.init)
    }

    // MARK: People

    public func person(_ id: Int, withCastCredits: Bool = false) async throws -> Person? {
        let found: TVMazePerson? = try await fetch("/people/\(id)", withCastCredits ? [("embed", "castcredits")] : [])
        return found.map(Person.init)
    }

    /// A person's parts in shows, each naming its show (and the character, when asked for): one request, not one per show.
    public func castCredits(ofPerson id: Int, withCharacters: Bool = false) async throws -> [Role] {
        let found: [TVMazeCastCredit] = try await list(
            "/people/\(id)/castcredits", withCharacters ? [("embed[]", "show"), ("embed[]", "character")] : [("embed", "show")])
        return found.map(Role.init)
    }

    /// A person's guest parts, each naming its episode (and character).
    public func guestCastCredits(ofPerson id: Int) async throws -> [Role] {
        let found: [TVMazeGuestCastCredit] = try await list("/people/\(id)/guestcastcredits",
                                                            [("embed[]", "episode"), ("embed[]", "character")])
        return found.map(Role.init)
    }

    /// People matching `query`, best first.
    public func searchPeople(_ query: String) async throws -> [Person] {
        let found: [TVMazePersonResult] = try await list("/search/people", [("q", query)])
        return found.map { Person($0.person) }
    }

    // MARK: Schedules and updates

    /// What airs in `country` (ISO 3166-1: GB, US) on `date`, each episode with its show.
    public func schedule(country: String, on date: CivilDate) async throws -> [Episode] {
        let found: [TVMazeEpisode] = try await list("/schedule", [("country", country), ("date", date.description)])
        return found.map { Episode($0) }
    }

    public enum UpdatesSince: String, Sendable {
        case day, week, month
    }

    /// Show id to the Unix time of its last change (a change to an episode counts for its show).
    public func showUpdates(since: UpdatesSince? = nil) async throws -> [Int: Int] {
        let raw: [String: Int] = try await fetch("/updates/shows", since.map { [("since", $0.rawValue)] } ?? []) ?? [:]
        return Dictionary(raw.compactMap { key, value in Bounded.integer(key, in: Self.idRange).map { ($0, value) } }, uniquingKeysWith: max)
    }

    /// Forgets the cached answers about a show (itself, its episodes, seasons, cast and crew), so the next request
    /// asks TVmaze: for shows `/updates/shows` says changed.
    public func forget(show id: Int) async throws {
        try await cache?.forgetResponses(keys: ["/shows/\(id)"], prefixes: ["/shows/\(id)?", "/shows/\(id)/"])
    }
}
