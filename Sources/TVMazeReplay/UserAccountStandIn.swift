import Foundation
import GuideCore
import NIOConcurrencyHelpers

/// SYNTHETIC: one TVmaze account's user API, as TVmaze's OpenAPI document describes it (`../shared/data/trackers/
/// FORMATS.md` §9; nobody has published a recorded answer): HTTP Basic with the username and API key, `/v1/auth/validate`,
/// marked episodes (`/v1/user/episodes`, Premium), follows (`/v1/user/follows/shows`, Premium) and scrobbling
/// (`/v1/scrobble/...`, every account). Marked episodes embed the episode as recorded in the fixtures, with its show's
/// link. Without Premium the `/v1/user` calls answer 403.
public final class UserAccountStandIn: Sendable {
    public struct Mark: Sendable, Equatable {
        /// Unix seconds; 0 when not known.
        public var markedAt: Int
        /// 0 watched, 1 acquired, 2 skipped.
        public var type: Int

        public init(markedAt: Int, type: Int) {
            (self.markedAt, self.type) = (markedAt, type)
        }
    }

    struct State {
        var username = "viewer"
        var apiKey = "key"
        var premium = 1
        var marks: [Int: Mark] = [:]
        var follows: Set<Int> = []
    }

    private let state = NIOLockedValueBox(State())
    /// The recorded episodes by id, each with its show's id.
    private let episodes: [Int: (show: Int, json: Data)]

    init(recordedEpisodes: [Int: (show: Int, json: Data)]) {
        episodes = recordedEpisodes
    }

    /// The account's credentials and Premium level (0 none, 1 to 3).
    public func configure(username: String, apiKey: String, premium: Int) {
        state.withLockedValue { ($0.username, $0.apiKey, $0.premium) = (username, apiKey, premium) }
    }

    public var marks: [Int: Mark] {
        get { state.withLockedValue { $0.marks } }
        set { state.withLockedValue { $0.marks = newValue } }
    }

    public var follows: Set<Int> {
        get { state.withLockedValue { $0.follows } }
        set { state.withLockedValue { $0.follows = newValue } }
    }

    /// The answer to a user API request; nil for a path outside it.
    func answer(_ method: String, _ path: String, authorization: String?, body: [UInt8]) -> ReplayServer.Answer? {
        guard path.hasPrefix("/v1/") else { return nil }
        return state.withLockedValue { state in
            let expected = "Basic " + Data("\(state.username):\(state.apiKey)".utf8).base64EncodedString()
            guard authorization == expected else { return Self.json(401, ["name": "Unauthorized", "message": "Your credentials are incorrect.", "code": 0, "status": 401]) }
            let parts = path.split(separator: "/").map(String.init)
            if parts.count >= 2, parts[1] == "user", state.premium == 0 {
                return Self.json(403, ["name": "Forbidden", "message": "This endpoint requires a premium subscription.", "code": 0, "status": 403])
            }
            // The route with its number as "#": "scrobble/shows/#".
            let route = parts.dropFirst().map { Int($0) == nil ? $0 : "#" }.joined(separator: "/")
            let number = parts.last.flatMap { Int($0) } ?? -1
            switch (method, route) {
            case ("GET", "auth/validate"):
                return Self.json(200, ["premium": state.premium])
            case ("GET", "user/episodes"):
                return Self.json(200, state.marks.sorted { $0.key < $1.key }.map { marked($0.key, $0.value) })
            case ("GET", "scrobble/shows/#"):
                return Self.json(200, state.marks.sorted { $0.key < $1.key }.filter { episodes[$0.key]?.show == number }
                    .map { marked($0.key, $0.value) })
            case ("PUT", "user/episodes/#"), ("PUT", "scrobble/episodes/#"):
                let id = number
                guard episodes[id] != nil else { return Self.json(404, ["name": "Not Found", "status": 404]) }
                let item = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
                let mark = Mark(markedAt: item["marked_at"] as? Int ?? Int(GuideClock.system().now().timeIntervalSince1970), type: item["type"] as? Int ?? 0)
                state.marks[id] = mark
                return Self.json(200, marked(id, mark))
            case ("DELETE", "user/episodes/#"):
                guard state.marks.removeValue(forKey: number) != nil else { return Self.json(404, ["name": "Not Found", "status": 404]) }
                return Self.json(200, [String: Any]())
            case ("POST", "scrobble/episodes"):
                guard let items = (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] else {
                    return Self.json(400, ["name": "Bad Request", "status": 400])
                }
                var results: [[String: Any]] = []
                for item in items {
                    guard let id = item["episode_id"] as? Int, episodes[id] != nil else {
                        results.append(["code": 404, "message": "Episode not found", "errors": [String: Any](), "input": item])
                        continue
                    }
                    let mark = Mark(markedAt: item["marked_at"] as? Int ?? 0, type: item["type"] as? Int ?? 0)
                    state.marks[id] = mark
                    results.append(["code": 200, "result": marked(id, mark)])
                }
                let good = results.filter { $0["code"] as? Int == 200 }.count
                return Self.json(good == results.count ? 200 : good == 0 ? 422 : 207, results)
            case ("GET", "user/follows/shows"):
                return Self.json(200, state.follows.sorted().map { ["show_id": $0] })
            case ("PUT", "user/follows/shows/#"):
                let id = number
                guard episodes.values.contains(where: { $0.show == id }) else {
                    return Self.json(404, ["name": "Not Found", "status": 404])
                }
                state.follows.insert(id)
                return Self.json(200, ["show_id": id])
            case ("DELETE", "user/follows/shows/#"):
                guard state.follows.remove(number) != nil else { return Self.json(404, ["name": "Not Found", "status": 404]) }
                return Self.json(200, [String: Any]())
            default:
                return Self.json(404, ["name": "Not Found", "message": "Page not found.", "code": 0, "status": 404])
            }
        }
    }

    private func marked(_ id: Int, _ mark: Mark) -> [String: Any] {
        var item: [String: Any] = ["episode_id": id, "marked_at": mark.markedAt, "type": mark.type]
        if let episode = episodes[id], let json = try? JSONSerialization.jsonObject(with: episode.json) {
            item["_embedded"] = ["episode": json]
        }
        return item
    }

    private static func json(_ status: Int, _ value: Any) -> ReplayServer.Answer {
        let body = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
        return ReplayServer.Answer(status: status, headers: [("Content-Type", "application/json; charset=UTF-8")], body: [UInt8](body))
    }

    /// The episodes recorded in show episode lists (`/shows/N/episodes`), each given its show's link as TVmaze does.
    static func episodes(in recordings: [String: [(body: [UInt8], status: Int)]]) -> [Int: (show: Int, json: Data)] {
        var episodes: [Int: (show: Int, json: Data)] = [:]
        for (path, answers) in recordings {
            let parts = path.split(separator: "/")
            guard parts.count == 3, parts[0] == "shows", parts[2] == "episodes", let show = Int(parts[1]) else { continue }
            for answer in answers where answer.status == 200 {
                for var episode in (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [[String: Any]] ?? [] {
                    guard let id = episode["id"] as? Int else { continue }
                    var links = episode["_links"] as? [String: Any] ?? [:]
                    links["show"] = ["href": "https://api.tvmaze.com/shows/\(show)"]
                    episode["_links"] = links
                    episodes[id] = (show, (try? JSONSerialization.data(withJSONObject: episode)) ?? Data())
                }
            }
        }
        return episodes
    }
}
