import Foundation
import Synchronization

/// Collects progress from every download and hands out snapshots, in order, on the thread that reported.
final class ProgressTracker: Sendable {
    private let state: Mutex<RefreshProgress>
    private let report: @Sendable (RefreshProgress) -> Void

    init(_ names: [String], report: @escaping @Sendable (RefreshProgress) -> Void) {
        state = Mutex(RefreshProgress(sources: names.map {
            RefreshProgress.Source(name: $0, phase: .waiting, feeds: [], downloadsDone: 0, downloadsTotal: 0)
        }))
        self.report = report
    }

    func update(_ name: String, _ change: (inout RefreshProgress.Source) -> Void) {
        // Reported inside the lock, so snapshots arrive in the order they were taken.
        state.withLock { state in
            guard let index = state.sources.firstIndex(where: { $0.name == name }) else { return }
            change(&state.sources[index])
            report(state)
        }
    }

    func feed(_ name: String, _ feed: FeedProgress) {
        update(name) { source in
            if let index = source.feeds.firstIndex(where: { $0.location == feed.location }) {
                source.feeds[index] = feed
            } else {
                source.feeds.append(feed)
            }
        }
    }
}
