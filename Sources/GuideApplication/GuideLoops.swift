import Foundation
import GuideCore
import GuideReminders
import GuideStore
import GuideThreads
import ServiceLifecycle
import Synchronization
import TVMaze

extension GuideServices {
    /// The application's background work, each a service of serve's group, made from the assembled services and run on
    /// the one clock: the refresh scheduler, followed shows, recordings, media-server reloads, reminders with
    /// episode reminders and saved searches, and the memory the process freed handed back to the system. What waits
    /// for the first run's work (the schema brought up to date, an empty guide filled) waits for `ready`. A loop's
    /// failure is handed to `report`, worded by whoever shows it.
    public func loops(after ready: StartGate, report: @escaping @Sendable (Sentence) -> Void) -> [any Service] {
        let store = self.store, settings = self.settings, clock = settings.clock
        let scheduler = self.scheduler, recordings = self.recordings, reloads = self.reloads, reminders = self.reminders
        var loops: [any Service] = [
            // A graceful shutdown lets the import running now finish. The scheduler starts once the first run's work
            // is done, so the two never fetch a source at once.
            BackgroundWork(onGracefulShutdown: { scheduler.stopAfterCurrentRefresh() }) {
                await ready.waitUntilOpen()
                await scheduler.run()
            },
            // Requests to record that waited for the recorder are sent, and its state read back.
            BackgroundWork { await Self.keepRecordingsCurrent(recordings, clock: clock, report: report) },
            BackgroundWork {
                await ready.waitUntilOpen()
                await reloads.run(clock: clock.waits) { report(.verbatim($0)) }
            },
            BackgroundWork {
                await ready.waitUntilOpen()
                async let episodes: Void = Self.keepEpisodeRemindersCurrent(
                    EpisodeReminders(store: store, defaultZone: settings.timeZone), clock: clock, report: report)
                async let searches: Void = Self.keepSavedSearchesCurrent(
                    SavedSearchReminders(store: store), recordings: recordings, store: store, clock: clock, report: report)
                await reminders.run()
                await episodes
                await searches
            },
        ]
        // What the pages and imports freed goes back to the system (``Allocator``).
        loops.append(BackgroundWork { await Self.releaseFreedMemory(clock: clock) })
        if let followed = parts.followedShows {
            loops.append(BackgroundWork { await Self.keepFollowedShowsCurrent(followed, store: store, clock: clock, report: report) })
        }
        return loops
    }

    /// Every 6 hours (first a minute after starting), brings followed shows up to date through `/updates/shows`, then
    /// syncs the profiles' TVmaze accounts (each one's outcome is kept with it, for its history page).
    static func keepFollowedShowsCurrent(_ tracker: SeriesTracker, store: any GuideDatabase, clock: GuideClock,
                                         report: @Sendable (Sentence) -> Void) async {
        var wait: Duration = .seconds(60)
        let accounts = TVMazeSync(history: WatchHistory(store: store, tracker: tracker, now: clock.now), client: tracker.client, accounts: store)
        while !Task.isCancelled {
            try? await clock.waits.sleep(for: wait)  // Cancelled: the loop ends at its test.
            wait = .seconds(6 * 3600)
            try? await accounts.syncAll()  // Each account's outcome is kept with it, for its history page.
            guard !Task.isCancelled, (try? await store.trackedShows().isEmpty) == false else { continue }
            do {
                let refreshed = try await tracker.refresh()
                if !refreshed.refetched.isEmpty || !refreshed.failed.isEmpty {
                    report(Sentence(saying: "Followed shows: {updated} updated from TVmaze, {failed} could not be fetched.",
                                    ["updated": String(refreshed.refetched.count), "failed": String(refreshed.failed.count)]))
                }
            } catch {
                report(Sentence(saying: "Followed shows could not be brought up to date: {error}", sentences: ["error": Sentence(error)]))
            }
        }
    }

    /// After every import (a new generation of the listings, looked for each minute) and every hour (programmes come
    /// within the two weeks' reach as time passes), every saved search's matches reminded; searches that record ask
    /// the recorder.
    static func keepSavedSearchesCurrent(_ searches: SavedSearchReminders, recordings: RecordingDesk, store: any GuideDatabase,
                                         clock: GuideClock, report: @Sendable (Sentence) -> Void) async {
        await afterEveryImport(of: store, atLeastEvery: 3600, now: clock.now, clock: clock.waits) {
            try await searches.run(at: clock.now())
            try await recordings.recordSavedSearches(at: clock.now())
        } failed: { error in
            report(Sentence(saying: "Saved searches could not be checked: {error}", sentences: ["error": Sentence(error)]))
        }
    }

    /// Every 5 minutes, every profile's episode reminders made to match its followed shows (TVmaze's times change,
    /// episodes get dated, the followed-shows loop brings new copies).
    static func keepEpisodeRemindersCurrent(_ episodes: EpisodeReminders, clock: GuideClock, report: @Sendable (Sentence) -> Void) async {
        while !Task.isCancelled {
            do {
                try await episodes.syncAll(at: clock.now())
            } catch {
                report(Sentence(saying: "Episode reminders could not be brought up to date: {error}", sentences: ["error": Sentence(error)]))
            }
            try? await clock.waits.sleep(for: .seconds(300))  // Cancelled: the loop ends at its test.
        }
    }

    /// Every ``Allocator/releaseInterval``, the memory the process freed handed back to the system. The soak and
    /// `scripts/bench scale`'s browsing measure what it keeps resident.
    static func releaseFreedMemory(clock: GuideClock) async {
        while !Task.isCancelled {
            try? await clock.waits.sleep(for: Allocator.releaseInterval)  // Cancelled: the loop ends at its test.
            Allocator.releaseFreed()
        }
    }

    /// Every 2 minutes: what waits for the recorder sent, what it did read back (nothing without a recorder).
    static func keepRecordingsCurrent(_ desk: RecordingDesk, clock: GuideClock, report: @Sendable (Sentence) -> Void) async {
        while !Task.isCancelled {
            do {
                try await desk.sync()
            } catch is CancellationError {
                return
            } catch {
                report(Sentence(saying: "Recordings: {error}", sentences: ["error": Sentence(error)]))
            }
            try? await clock.waits.sleep(for: .seconds(120))  // Cancelled: the loop ends at its test.
        }
    }
}

/// Opened once, when the first run's work is done; the loops that must not start before it wait for it (a cancelled
/// waiter stops waiting).
public final class StartGate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [AsyncStream<Void>.Continuation])>((false, []))

    public init() {}

    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.finish() }
    }

    public func waitUntilOpen() async {
        let (opened, continuation) = AsyncStream<Void>.makeStream()
        let isOpen = state.withLock { state in
            if !state.isOpen { state.waiting.append(continuation) }
            return state.isOpen
        }
        if isOpen { return }
        for await _ in opened {}
    }
}

/// Work that runs for as long as the server does, as a service of its group: cancelled when the group shuts down, or,
/// given `onGracefulShutdown`, told so and waited for (the services before it in the group, the store among them, stop
/// after it).
public struct BackgroundWork: Service {
    let work: @Sendable () async -> Void
    let onGracefulShutdown: (@Sendable () -> Void)?

    public init(onGracefulShutdown: (@Sendable () -> Void)? = nil, _ work: @escaping @Sendable () async -> Void) {
        self.work = work
        self.onGracefulShutdown = onGracefulShutdown
    }

    public func run() async throws {
        if let onGracefulShutdown {
            await withGracefulShutdownHandler { await work() } onGracefulShutdown: { onGracefulShutdown() }
        } else {
            await cancelWhenGracefulShutdown { await work() }
        }
    }

    /// Waits until the task is cancelled (serve's shutdown): a service with nothing to do must not end before it.
    public static func untilCancelled() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}
