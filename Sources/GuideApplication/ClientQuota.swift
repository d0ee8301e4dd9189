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

    /// Seconds until the window starts again.
    public func retryAfter() -> Int {
        let now = now()
        return state.withLock { max(1, Int((window - now.timeIntervalSince($0.start)).rounded(.up))) }
    }
}
