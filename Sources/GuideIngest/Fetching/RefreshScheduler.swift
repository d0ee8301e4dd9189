import Foundation
import GuideCore
import GuideStore
import Synchronization

/// Keeps a running server's sources fresh: refreshes each when it is due (``SourceStatus/nextDue``: its interval
/// after the last try, failures retried after 30 minutes doubling to a day), and on demand. The refresher never runs two refreshes of one source
/// at once. Progress goes to whoever listens (the admin page's live view).
public actor RefreshScheduler {
    public let refresher: SourceRefresher
    /// Wall time, for which sources are due.
    let now: @Sendable () -> Date
    /// How long the loop waits between looks, and how its progress is paced; tests use a virtual one.
    nonisolated public let clock: any Clock<Duration>
    private let broadcast = ProgressBroadcast()
    /// Sources a refresh started here is responsible for, from the moment it was started (before the refresher
    /// has them), so two quick starts never both take one.
    private var claimed: Set<SourceName> = []
    /// Set by ``stopAfterCurrentRefresh()``: the loop ends after the refresh it is in; its wait, if it is waiting,
    /// is cut short.
    private let stopping = Mutex<(requested: Bool, wait: Task<Void, any Error>?)>((false, nil))

    public init(refresher: SourceRefresher, now: @escaping @Sendable () -> Date, clock: any Clock<Duration>) {
        self.refresher = refresher
        self.now = now
        self.clock = clock
    }

    /// Refreshes the sources that are due; their reports (none when nothing was due).
    @discardableResult
    public func refreshDue() async throws -> [SourceReport] {
        let instant = now()
        let due = try await refresher.store.sources(counting: false).filter { $0.nextDue <= instant }.map(\.definition.name)
        guard !due.isEmpty else { return [] }
        return try await refresh(due)
    }

    /// Refreshes the named sources (all when nil) now. Sources already being refreshed are left to that refresh.
    @discardableResult
    public func refresh(_ names: [SourceName]? = nil) async throws -> [SourceReport] {
        guard let (idle, run) = try await claimIdle(names) else { return [] }
        return try await refresh(idle, run: run)
    }

    /// Starts refreshing the named sources (all when nil) in the background; the names it started, leaving out
    /// those already being refreshed. Progress arrives through ``updates()``, and ``latest`` shows them waiting
    /// from the moment this returns.
    public func start(_ names: [SourceName]? = nil) async throws -> [SourceName] {
        guard let (idle, run) = try await claimIdle(names) else { return [] }
        Task { try? await self.refresh(idle, run: run) }
        return idle
    }

    /// Claims the sources and opens a new run in the progress broadcast, its sources waiting.
    private func announce(_ names: [SourceName]) -> Int {
        claimed.formUnion(names)
        let run = broadcast.begin()
        broadcast.publish(RefreshProgress(sources: names.map {
            RefreshProgress.Source(name: $0.rawValue, phase: .waiting, feeds: [], downloadsDone: 0, downloadsTotal: 0)
        }), run: run)
        return run
    }

    private func refresh(_ names: [SourceName], run: Int) async throws -> [SourceReport] {
        let broadcast = self.broadcast
        defer { claimed.subtract(names) }
        do {
            return try await refresher.refresh(names) { broadcast.publish($0, run: run) }
        } catch {
            // Nothing ran (the store could not list the sources): the announced run ends as failed, not waiting.
            broadcast.publish(RefreshProgress(sources: names.map {
                RefreshProgress.Source(name: $0.rawValue, phase: .failed, feeds: [], downloadsDone: 0, downloadsTotal: 0,
                                       error: Sentence(error))
            }), run: run)
            throw error
        }
    }

    /// Claims the named sources (all when nil) that are not being refreshed now, and announces their run; nil when
    /// there are none. `.notFound` for a name not configured.
    private func claimIdle(_ names: [SourceName]?) async throws -> (names: [SourceName], run: Int)? {
        let configured = try await refresher.store.sources(counting: false).map(\.definition.name)
        // Nothing suspends from here to the claim, so two quick starts never both take one source.
        if let unknown = names?.first(where: { !configured.contains($0) }) {
            throw StoreError(.notFound, saying: "there is no source called {name}", ["name": "\(unknown)"])
        }
        let idle = (names ?? configured).filter { !claimed.contains($0) && !refresher.isRefreshing($0) }
        guard !idle.isEmpty else { return nil }
        return (idle, announce(idle))
    }

    /// Refreshes due sources until cancelled, looking again when the next one is due and at least every `check`.
    public func run(check: Duration = .seconds(60)) async {
        while !Task.isCancelled, !stopping.withLock({ $0.requested }) {
            _ = try? await refreshDue()
            let next = (try? await refresher.store.sources(counting: false).map(\.nextDue).min()) ?? nil
            var wait = check
            if let next {
                // Compared before it becomes a Duration: a clock set far back would make it too many milliseconds for Int64.
                let seconds = next.timeIntervalSince(now())
                if seconds < check / .seconds(1) { wait = min(check, .milliseconds(Int64(max(1, seconds) * 1000))) }
            }
            let sleep = Task { [clock] in try await clock.sleep(for: wait) }
            guard stopping.withLock({ state in
                state.wait = sleep
                return !state.requested
            }) else {
                sleep.cancel()
                break
            }
            await withTaskCancellationHandler { _ = await sleep.result } onCancel: { sleep.cancel() }
            stopping.withLock { $0.wait = nil }
        }
    }

    /// Ends ``run(check:)`` once the refresh running now (if any) has finished, and at once if it is waiting: a
    /// graceful shutdown lets an import finish rather than throwing its work away.
    public nonisolated func stopAfterCurrentRefresh() {
        stopping.withLock { state in
            state.requested = true
            return state.wait
        }?.cancel()
    }

    /// The sources being refreshed now (or about to be).
    public func refreshing() async throws -> Set<SourceName> {
        claimed.union(try await refresher.store.sources(counting: false).map(\.definition.name).filter(refresher.isRefreshing))
    }

    /// Progress snapshots from now on, starting with the latest.
    public nonisolated func updates() -> AsyncStream<RefreshProgress> { broadcast.updates() }

    /// The latest progress of the refresh running now or last.
    public nonisolated var latest: RefreshProgress? { broadcast.latest }
}

/// Hands each progress snapshot to every listener, in order, as it is reported. Refreshes running at the same time
/// (the schedule's and one started by hand) are shown as one: their sources side by side, until a new refresh
/// starts after they finished.
final class ProgressBroadcast: Sendable {
    private struct State {
        var runs: [(id: Int, progress: RefreshProgress)] = []
        var nextRun = 0
        var latest: RefreshProgress?
        var listeners: [UUID: AsyncStream<RefreshProgress>.Continuation] = [:]
    }

    private let state = Mutex(State())

    var latest: RefreshProgress? { state.withLock { $0.latest } }

    /// A new refresh's number for ``publish(_:run:)``; finished refreshes are forgotten.
    func begin() -> Int {
        state.withLock { state in
            state.runs.removeAll { $0.progress.isFinished }
            state.nextRun += 1
            return state.nextRun
        }
    }

    func publish(_ progress: RefreshProgress, run: Int) {
        state.withLock { state in
            if let index = state.runs.firstIndex(where: { $0.id == run }) {
                state.runs[index].progress = progress
            } else {
                state.runs.append((run, progress))
            }
            let combined = RefreshProgress(sources: state.runs.flatMap(\.progress.sources))
            state.latest = combined
            for listener in state.listeners.values { listener.yield(combined) }
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
