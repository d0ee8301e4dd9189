import Foundation
import GuideCore
import GuideStore
import Synchronization

/// Keeps a running server's sources fresh: refreshes each when its interval has passed since its last try (a
/// failed one again after at most 30 minutes), and on demand. The refresher never runs two refreshes of one source
/// at once. Progress goes to whoever listens (the admin page's live view).
public actor RefreshScheduler {
    let refresher: SourceRefresher
    let now: @Sendable () -> Date
    private let broadcast = ProgressBroadcast()

    /// A failed source is tried again after this at most, whatever its interval.
    static let retryFailedAfter: TimeInterval = 30 * 60

    public init(refresher: SourceRefresher, now: @escaping @Sendable () -> Date = Date.init) {
        self.refresher = refresher
        self.now = now
    }

    /// When `status`'s source should next be refreshed.
    static func due(_ status: SourceStatus) -> Date {
        guard let attempt = status.lastAttempt else { return .distantPast }
        var wait = TimeInterval(status.definition.refreshInterval)
        if status.lastOutcome == .failed { wait = min(wait, retryFailedAfter) }
        return attempt.addingTimeInterval(wait)
    }

    /// Refreshes the sources that are due; their reports (none when nothing was due).
    @discardableResult
    public func refreshDue() async throws -> [SourceReport] {
        let instant = now()
        let due = try refresher.store.sources().filter { Self.due($0) <= instant }.map(\.definition.name)
        guard !due.isEmpty else { return [] }
        return try await refresh(due)
    }

    /// Refreshes the named sources (all when nil) now.
    @discardableResult
    public func refresh(_ names: [SourceName]? = nil) async throws -> [SourceReport] {
        let broadcast = self.broadcast
        return try await refresher.refresh(names) { broadcast.publish($0) }
    }

    /// Refreshes due sources until cancelled, looking again when the next one is due and at least every `check`.
    public func run(check: Duration = .seconds(60)) async {
        while !Task.isCancelled {
            _ = try? await refreshDue()
            let next = (try? refresher.store.sources().map(Self.due).min()) ?? nil
            var wait = check
            if let next {
                let seconds = max(1, next.timeIntervalSince(now()))
                wait = min(check, .milliseconds(Int64(seconds * 1000)))
            }
            try? await Task.sleep(for: wait)
        }
    }

    /// Progress snapshots from now on, starting with the latest.
    public nonisolated func updates() -> AsyncStream<RefreshProgress> { broadcast.updates() }

    /// The latest progress of the refresh running now or last.
    public nonisolated var latest: RefreshProgress? { broadcast.latest }
}

/// Hands each progress snapshot to every listener, in order, as it is reported.
final class ProgressBroadcast: Sendable {
    private let state = Mutex<(latest: RefreshProgress?, listeners: [UUID: AsyncStream<RefreshProgress>.Continuation])>((nil, [:]))

    var latest: RefreshProgress? { state.withLock { $0.latest } }

    func publish(_ progress: RefreshProgress) {
        state.withLock { state in
            state.latest = progress
            for listener in state.listeners.values { listener.yield(progress) }
        }
    }

    func updates() -> AsyncStream<RefreshProgress> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: RefreshProgress.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { state in
            if let latest = state.latest { continuation.yield(latest) }
            state.listeners[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        return stream
    }
}
