import Foundation
import GuideCore

/// One TVmaze account's user API (`../shared/data/trackers/FORMATS.md` §9, from TVmaze's OpenAPI document): HTTP Basic
/// with the TVmaze username and the API key from the user's dashboard. Every call goes through the client's shared
/// rate limiter (20 requests in 10 s for all of tvguide) and its retries, and none is cached. The `/user` calls need
/// a Premium account; the `/scrobble` calls work for every account.
public struct TVMazeAccountClient: Sendable {
    public struct Credentials: Sendable, Equatable {
        public var username: String
        public var apiKey: String

        public init(username: String, apiKey: String) {
            (self.username, self.apiKey) = (username, apiKey)
        }
    }

    /// A watched mark on TVmaze, with what its embedded episode says of it.
    public struct RemoteMark: Sendable, Equatable {
        public var episodeID: Int
        public var showID: Int?
        public var season: Int?
        public var number: Int?
        /// When it was watched; nil for TVmaze's 0 ("not known") or a time outside ``WatchedEpisode/timeRange``.
        public var watchedAt: Date?

        public init(episodeID: Int, showID: Int?, season: Int?, number: Int?, watchedAt: Date?) {
            (self.episodeID, self.showID, self.season, self.number, self.watchedAt) = (episodeID, showID, season, number, watchedAt)
        }
    }

    /// Episodes marked in one bulk request, at most (TVmaze documents none; its answers list each item).
    static let batch = 100

    let client: TVMazeClient
    let credentials: Credentials

    public init(client: TVMazeClient, credentials: Credentials) {
        (self.client, self.credentials) = (client, credentials)
    }

    /// The account's Premium level: 0 none, 1 Bronze, 2 Silver, 3 Gold. ``TVMazeError/unauthorized`` for a wrong key.
    public func premium() async throws -> Int {
        struct Validation: Decodable { var premium: Int? }
        let answer: Validation = try await decode(try await call("GET", "/v1/auth/validate"))
        return Bounded.clamped(answer.premium ?? 0, to: 0...3)
    }

    /// The shows the account follows (Premium).
    public func follows() async throws -> Set<Int> {
        struct Follow: Decodable { var show_id: Int }
        let answer: [Follow] = try await decode(try await call("GET", "/v1/user/follows/shows"))
        return Set(answer.map(\.show_id).filter(TVMazeClient.idRange.contains))
    }

    /// Every episode the account marked watched (Premium).
    public func marks() async throws -> [RemoteMark] {
        try await remoteMarks(try await call("GET", "/v1/user/episodes", query: [("embed", "episode")]))
    }

    /// The episodes of one show the account marked watched (every account).
    public func marks(ofShow id: Int) async throws -> [RemoteMark] {
        try await remoteMarks(try await call("GET", "/v1/scrobble/shows/\(id)", query: [("embed", "episode")]))
    }

    /// Marks episodes watched, by id (every account), `batch` at a time: the ids TVmaze did not take.
    public func mark(_ marks: [WatchedEpisode]) async throws -> Set<Int> {
        struct Item: Encodable { var episode_id: Int; var marked_at: Int64; var type: Int }
        struct Result: Decodable { var code: Int }
        var refused: Set<Int> = []
        for start in stride(from: 0, to: marks.count, by: Self.batch) {
            let chunk = Array(marks[start..<min(marks.count, start + Self.batch)])
            let items = chunk.map { Item(episode_id: $0.episodeID, marked_at: $0.watchedAt.map { Int64($0.timeIntervalSince1970) } ?? 0, type: 0) }
            let answer = try await call("POST", "/v1/scrobble/episodes", body: try JSONEncoder().encode(items), answers: [200, 207, 422])
            // In input order; an item answered other than 2xx was not marked (422 for all, 207 for some).
            let results: [Result] = try await decode(answer)
            for (index, mark) in chunk.enumerated() where index >= results.count || !(200...299).contains(results[index].code) {
                refused.insert(mark.episodeID)
            }
        }
        return refused
    }

    /// Unmarks an episode (Premium); one TVmaze had not marked is already as wanted.
    public func unmark(_ episode: Int) async throws {
        _ = try await call("DELETE", "/v1/user/episodes/\(episode)")
    }

    /// Follows a show (Premium); false when TVmaze has no such show.
    public func follow(_ show: Int) async throws -> Bool {
        try await call("PUT", "/v1/user/follows/shows/\(show)").status == 200
    }

    /// Unfollows a show (Premium); one not followed is already as wanted.
    public func unfollow(_ show: Int) async throws {
        _ = try await call("DELETE", "/v1/user/follows/shows/\(show)")
    }

    // MARK: - Calls

    private func call(_ method: String, _ path: String, query: [(String, String)] = [], body: Data? = nil,
                      answers: Set<Int> = [200, 404]) async throws -> (status: Int, body: Data, key: String) {
        let key = TVMazeClient.key(path, query)
        let basic = Data("\(credentials.username):\(credentials.apiKey)".utf8).base64EncodedString()
        let answer = try await client.tries(key, method: method, headers: [("Authorization", "Basic \(basic)")], body: body,
                                            answers: answers, within: nil)
        return (answer.status, answer.body, key)
    }

    private func decode<T: Decodable>(_ answer: (status: Int, body: Data, key: String)) async throws -> T {
        guard answer.status != 404 else { throw TVMazeError.notFound(path: answer.key) }
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw TVMazeError.unreadable(path: answer.key, detail: TVMazeClient.describe(error))
        }
    }

    /// Watched marks (type 0) of a list of `MarkedEpisode`s; acquired (1) and skipped (2) are not watching.
    private func remoteMarks(_ answer: (status: Int, body: Data, key: String)) async throws -> [RemoteMark] {
        struct Marked: Decodable {
            var episode_id: Int
            var marked_at: Int64?
            var type: Int?
            var _embedded: Embedded?
            struct Embedded: Decodable { var episode: TVMazeEpisode? }
        }
        guard answer.status != 404 else { return [] }
        let marked: [Marked] = try await decode(answer)
        return marked.compactMap { item in
            guard (item.type ?? 0) == 0, TVMazeClient.idRange.contains(item.episode_id) else { return nil }
            let seconds = item.marked_at.map(TimeInterval.init).flatMap { WatchedEpisode.timeRange.contains($0) && $0 != 0 ? $0 : nil }
            let episode = item._embedded?.episode
            return RemoteMark(episodeID: item.episode_id, showID: episode?._links?.show?.id, season: episode?.season,
                              number: episode?.number, watchedAt: seconds.map(Date.init(timeIntervalSince1970:)))
        }
    }
}
