import Foundation
import GuideCore
import GuideHTTP
import GuideStore
import GuideWebFormats
import NIOCore
import Synchronization

/// How the client asks: the cache first, then TVmaze through the rate limiter, with retries and a deadline.
extension TVMazeClient {
    static func embed(_ embeds: [ShowEmbed]) -> [(String, String)] {
        embeds.count == 1 ? [("embed", embeds[0].rawValue)] : embeds.map { ("embed[]", $0.rawValue) }
    }

    /// A list, empty when TVmaze says there is none (404).
    func list<T: Decodable>(_ path: String, _ query: [(String, String)]) async throws -> [T] {
        try await fetch(path, query) ?? []
    }

    /// The decoded answer for `path`, or nil for a 404.
    func fetch<T: Decodable>(_ path: String, _ query: [(String, String)], freshFor: TimeInterval? = nil) async throws -> T? {
        let key = Self.key(path, query)
        let answer = try await response(for: key, freshFor: freshFor ?? policy.freshFor)
        guard answer.status == 200 else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw TVMazeError.unreadable(path: key, detail: Self.describe(error))
        }
    }

    /// The path and query as the cache knows it and as it is appended to the base URL.
    static func key(_ path: String, _ query: [(String, String)]) -> String {
        guard !query.isEmpty else { return path }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return path + "?" + query.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name) + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
    }

    /// A fresh cached answer, or TVmaze's; a stale cached one when TVmaze cannot answer.
    func response(for key: String, freshFor: TimeInterval) async throws -> CachedResponse {
        let cached = try await cache?.cachedResponse(for: key)
        if let cached, now().timeIntervalSince(cached.fetched) < freshFor, now() >= cached.fetched {
            return cached
        }
        do {
            let answer = try await download(key)
            try await cache?.storeResponse(answer, for: key)
            try await pruneNowAndThen()
            return answer
        } catch let error as TVMazeError {
            // Offline, or TVmaze is struggling: what we had is better than nothing.
            if let cached, error.isTemporary { return cached }
            throw error
        }
    }

    /// Every `pruneEvery` answers stored, forgets those past the cache's age and size: guests' searches each store
    /// an answer, and must not fill the disk.
    private func pruneNowAndThen() async throws {
        guard let cache else { return }
        let due = storedSincePrune.withLock { count in
            count += 1
            guard count >= policy.pruneEvery else { return false }
            count = 0
            return true
        }
        if due { try await cache.pruneResponses(fetchedBefore: now().addingTimeInterval(-policy.cacheAge), keepingAtMost: policy.cacheBytes) }
    }

    /// One GET through the limiter, retried on 429, 5xx and dropped connections, within the policy's deadline, each
    /// try a ``JSONCall``.
    func download(_ key: String) async throws -> CachedResponse {
        guard let deadline = policy.deadline else { return try await tries(key, within: nil) }
        let stopwatch = Stopwatch(on: clock)
        return try await withThrowingTaskGroup(of: CachedResponse.self) { group in
            group.addTask { try await self.tries(key, within: { deadline - stopwatch.elapsed() }) }
            group.addTask {
                try await self.clock.sleep(for: deadline)
                throw TVMazeError.busy(retryAfter: 10)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw TVMazeError.busy(retryAfter: 10) }
            return first
        }
    }

    /// `left` says how much of the deadline is left, when there is one. A user API call sends `method` with its
    /// credentials in `headers` and `body`, and takes more answers than 200 and 404 as TVmaze's word (`answers`).
    func tries(_ key: String, method: String = "GET", headers: [(String, String)] = [], body: Data? = nil,
               answers: Set<Int> = [200, 404], within left: (@Sendable () -> Duration)?) async throws -> CachedResponse {
        guard let url = URL(string: base + key) else { throw TVMazeError.badURL(base + key) }
        var wait = policy.backoff
        var lastError = TVMazeError.unreachable(url: url.absoluteString, detail: "no try was made")
        for attempt in 1...max(1, policy.tries) {
            if attempt > 1 {
                try await clock.sleep(for: wait)
                wait *= 2
            }
            do {
                try await limiter.acquire(waitingAtMost: left?())
            } catch let busy as RateLimiter.Busy {
                throw TVMazeError.busy(retryAfter: busy.retryAfter)
            }
            let answer: JSONCall.Answer
            do {
                answer = try await JSONCall(transport: transport, largest: policy.largestBody, deadline: left?() ?? Self.tryLimit)
                    .exchange(method, url.absoluteString, headers: headers, body: body.map { .json($0) } ?? .none)
            } catch {
                switch error {
                case .notAnAddress: throw TVMazeError.badURL(url.absoluteString)
                case .tooLarge(let limit):
                    throw TVMazeError.unreadable(path: url.absoluteString, detail: "the answer is larger than \(limit / 1_048_576) MB")
                case .unreachable(let cause) where cause is CancellationError: throw CancellationError()
                case .unreachable(let cause): lastError = .unreachable(url: url.absoluteString, detail: Self.describe(cause))
                default: lastError = .unreachable(url: url.absoluteString, detail: Self.describe(error))
                }
                continue
            }
            switch answer.status {
            case let status where answers.contains(status):
                return CachedResponse(status: answer.status, body: answer.body, fetched: now())
            case 401 where !headers.isEmpty:
                throw TVMazeError.unauthorized
            case 429, 500...599:
                lastError = .status(answer.status, url: url.absoluteString)
                if let retryAfter = answer.headers["retry-after"].flatMap({ HTTPDate.retryAfter($0, now: now()) }) {
                    guard retryAfter <= policy.longestRetryAfter else { throw lastError }
                    wait = max(retryAfter, .zero)
                }
            default:
                throw TVMazeError.status(answer.status, url: url.absoluteString)
            }
        }
        throw lastError
    }

    /// How long one try may take, its answer included, when the policy sets no deadline.
    static let tryLimit: Duration = .seconds(120)

    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .keyNotFound(let key, let context): return "\(key.stringValue) missing at \(path(context))"
            case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(context.debugDescription) at \(path(context))"
            case .dataCorrupted(let context): return "not JSON: \(context.debugDescription)"
            @unknown default: return "\(error)"
            }
        }
        return "\(error)"
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
