import Foundation
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird
import TVMaze

/// A profile's TVmaze account on its history page: POST `/history/tvmaze` checks a username and API key with TVmaze
/// and keeps them; `/history/tvmaze/sync` starts a sync in the background (the page then says how it went);
/// `/history/tvmaze/disconnect` forgets the account. serve also syncs every account every 6 hours.
struct TVMazeAccountPages: Sendable {
    let sync: TVMazeSync
    let runner: TVMazeSyncRunner
    let series: SeriesServices

    /// The account as the history page shows it.
    struct Entry {
        var username: String
        var premium: Bool
        var status: String
        var failed: Bool
        var syncing: Bool
    }

    func register(on routes: RouteGroups) {
        routes.profile.post(.historyTVMaze) { request, context -> Response in
            let form = try await TVMazeAccountForm(request, context)
            try await series.tvmaze { try await sync.connect(.init(username: form.username, apiKey: form.key), profile: context.profile.id) }
            await runner.start(context.profile.id)
            return .redirect(to: SitePath.history.description + "#tvmaze")
        }
        routes.profile.post(.historyTVMazeSync) { _, context -> Response in
            guard await runner.start(context.profile.id) else {
                throw Refusal(.serviceUnavailable, headers: [.retryAfter: "60"],
                              saying: "Other profiles' syncs are running; try again in a minute.")
            }
            return .redirect(to: SitePath.history.description + "#tvmaze")
        }
        routes.profile.post(.historyTVMazeDisconnect) { _, context -> Response in
            try await sync.disconnect(profile: context.profile.id)
            return .redirect(to: SitePath.history.description + "#tvmaze")
        }
    }

    /// The profile's account for its history page; nil when it has none.
    func entry(of profile: ProfileID, clock: ViewerClock, words: Localizer) async throws -> Entry? {
        guard let account = try await sync.accounts.tvmazeAccount(of: profile) else { return nil }
        let syncing = await runner.isRunning(profile)
        let failed = account.succeeded == false
        let status = if syncing {
            words("Syncing now: reload the page in a moment.")
        } else if failed {
            words("The last sync failed: {outcome}.", ["outcome": TVMazeSync.Report.outcome(account.outcome ?? "").worded(words)])
        } else if let synced = account.syncedAt {
            words("Last synced {date} {time}: {outcome}.", ["date": clock.date(synced), "time": clock.time(synced), "outcome": TVMazeSync.Report.outcome(account.outcome ?? "").worded(words)])
        } else {
            words("Not synced yet.")
        }
        return Entry(username: account.username, premium: account.premium > 0, status: status, failed: failed, syncing: syncing)
    }
}

/// Syncs started from the pages, in the background: one at a time per profile, ``most`` at once in all.
actor TVMazeSyncRunner {
    static let most = 2
    private let sync: TVMazeSync
    private var running: Set<ProfileID> = []

    init(sync: TVMazeSync) {
        self.sync = sync
    }

    func isRunning(_ profile: ProfileID) -> Bool { running.contains(profile) }

    /// Starts a sync of `profile`'s account unless one runs (true); false when ``most`` run for others.
    @discardableResult
    func start(_ profile: ProfileID) -> Bool {
        guard !running.contains(profile) else { return true }
        guard running.count < Self.most else { return false }
        running.insert(profile)
        Task { [sync] in
            _ = try? await sync.sync(profile)
            self.finished(profile)
        }
        return true
    }

    private func finished(_ profile: ProfileID) {
        running.remove(profile)
    }
}

/// A TVmaze username and the API key from its dashboard.
struct TVMazeAccountForm: PostedForm {
    let username: String
    let key: String

    init(_ form: FormFields) throws(FieldError) {
        guard let username = try form.text("username", limit: 200, called: "The TVmaze username"), !username.isEmpty else {
            throw FieldError(name: "username", saying: "The TVmaze username is needed")
        }
        guard let key = try form.text("key", limit: 200, called: "The API key"), !key.isEmpty else {
            throw FieldError(name: "key", saying: "The API key is needed: it is on your TVmaze dashboard, under API")
        }
        (self.username, self.key) = (username.trimmingCharacters(in: .whitespaces), key.trimmingCharacters(in: .whitespaces))
    }
}
