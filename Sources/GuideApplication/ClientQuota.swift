import Foundation
import Synchronization

/// At most `limit` uses per client address in each `window`, counted for at most `clients` addresses at a time: what
/// one guest may make the server do for them (fetch images it has not got). A window past its end starts again.
public final class ClientQuota: Sendable {
    public let limit: Int
    public let window: TimeInterval
    public let clients: Int
    private let state: Mutex<(start: Date, counts: [String: Int])>
    private let now: @Sendable () -> Date

    public init(limit: Int, per window: TimeInterval, clients: Int = 10_000, now: @escaping @Sendable () -> Date) {
        self.now = now
        self.limit = limit
        self.window = window
        self.clients = clients
        state = Mutex((.distantPast, [:]))
    }

    /// Takes one use for `client`; false when its quota for this window is spent (or too many clients are counted).
    public func take(_ client: String) -> Bool {
        let now = now()
        return state.withLock { state in
            if now.timeIntervalSince(state.start) >= window || now < state.start { state = (now, [:]) }
            let used = state.counts[client] ?? 0
            guard used < limit, used > 0 || state.counts.count < clients else { return false }
            state.counts[client] = used + 1
            return true
        }
    }

    /// Whether `client` has used its quota for this window.
    public func isSpent(_ client: String) -> Bool {
        let now = now()
        return state.withLock { now.timeIntervalSince($0.start) < window && now >= $0.start && $0.counts[client] ?? 0 >= limit }
    }

    /// Seconds until the window starts again.
    public func retryAfter() -> Int {
        let now = now()
        return state.withLock { max(1, Int((window - now.timeIntervalSince($0.start)).rounded(.up))) }
    }
}

/// What the pages may spend of a paid or rate-limited service for whoever asks: guests, from any number of addresses,
/// share one allowance (`guestsPerMinute` and `guestsPerDay` in all), and each signed-in profile has its own
/// (`perProfilePerMinute`). Guests can never spend more than their share of the service's budget, and a signed-in
/// viewer is never kept out by them.
public final class CallerShares: Sendable {
    private let guestsNow: ClientQuota
    private let guestsToday: ClientQuota
    private let profiles: ClientQuota
    static let guests = "guests"

    public init(guestsPerMinute: Int, guestsPerDay: Int, perProfilePerMinute: Int, now: @escaping @Sendable () -> Date) {
        guestsNow = ClientQuota(limit: guestsPerMinute, per: 60, clients: 1, now: now)
        guestsToday = ClientQuota(limit: guestsPerDay, per: 86_400, clients: 1, now: now)
        profiles = ClientQuota(limit: perProfilePerMinute, per: 60, now: now)
    }

    /// Takes one use for `profile` (a profile's id; nil for a guest); false when its share is spent.
    public func take(profile: String?) -> Bool {
        guard profile == nil else { return profiles.take(profile ?? "") }
        // The day's count is taken only when the minute's allows it: a refused try spends nothing.
        guard guestsNow.take(Self.guests) else { return false }
        return guestsToday.take(Self.guests)
    }

    /// Seconds until `profile`'s share (a guest's: the guests') may be asked again.
    public func retryAfter(profile: String?) -> Int {
        guard profile == nil else { return profiles.retryAfter() }
        return guestsToday.isSpent(Self.guests) ? guestsToday.retryAfter() : guestsNow.retryAfter()
    }
}
