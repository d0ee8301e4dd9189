import Foundation
import GuideCore
import GuideStore

/// A profile's watched episodes and followed shows kept the same here and on the viewer's TVmaze account, both ways
/// (``TVMazeSyncPlan``), with the account's username and API key. With Premium, every mark and follow is synced; without
/// it TVmaze lets tvguide read and send marks but not unmark or follow, so marks of the shows followed here are synced,
/// marks of others are sent, and follows stay apart.
public struct TVMazeSync: Sendable {
    public let history: WatchHistory
    public let client: TVMazeClient
    public let accounts: any TVMazeAccountStore

    /// What a sync did, in counts.
    public struct Report: Sendable, Equatable, Codable, CustomStringConvertible {
        public var markedHere = 0, unmarkedHere = 0, markedThere = 0, unmarkedThere = 0
        public var followedHere = 0, unfollowedHere = 0, followedThere = 0, unfollowedThere = 0
        /// Unmarks TVmaze keeps marked (it takes unmarks from Premium accounts only).
        public var keptThere = 0
        /// Marks TVmaze refused, and marks of episodes whose show it could not give.
        public var refused = 0

        public var description: String { sentence.description }

        /// "1 marked here, 1 marked on TVmaze", worded for each reader.
        public var sentence: Sentence {
            let parts = [
                (markedHere, Sentence(saying: "{count} marked here", plural: "{count} marked here", count: markedHere)),
                (unmarkedHere, Sentence(saying: "{count} unmarked here", plural: "{count} unmarked here", count: unmarkedHere)),
                (markedThere, Sentence(saying: "{count} marked on TVmaze", plural: "{count} marked on TVmaze", count: markedThere)),
                (unmarkedThere, Sentence(saying: "{count} unmarked on TVmaze", plural: "{count} unmarked on TVmaze", count: unmarkedThere)),
                (followedHere, Sentence(saying: "{count} followed here", plural: "{count} followed here", count: followedHere)),
                (unfollowedHere, Sentence(saying: "{count} unfollowed here", plural: "{count} unfollowed here", count: unfollowedHere)),
                (followedThere, Sentence(saying: "{count} followed on TVmaze", plural: "{count} followed on TVmaze", count: followedThere)),
                (unfollowedThere, Sentence(saying: "{count} unfollowed on TVmaze", plural: "{count} unfollowed on TVmaze", count: unfollowedThere)),
                (keptThere, Sentence(saying: "{count} still marked on TVmaze (unmarking there needs Premium)",
                                     plural: "{count} still marked on TVmaze (unmarking there needs Premium)", count: keptThere)),
                (refused, Sentence(saying: "{count} refused by TVmaze", plural: "{count} refused by TVmaze", count: refused)),
            ].filter { $0.0 > 0 }.map(\.1)
            return parts.isEmpty ? Sentence(saying: "already the same on both sides") : .list(parts, separator: ", ")
        }

        /// What is kept with the account after a sync: the counts.
        var stored: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? description
        }

        /// A kept outcome: a sync's counts, or a failure as ``Sentence/stored`` keeps it (text kept before sentences
        /// were reads as it was).
        public static func outcome(_ kept: String) -> Sentence {
            guard kept.hasPrefix("{"), let report = try? JSONDecoder().decode(Report.self, from: Data(kept.utf8)) else { return Sentence(stored: kept) }
            return report.sentence
        }
    }

    public init(history: WatchHistory, client: TVMazeClient, accounts: any TVMazeAccountStore) {
        (self.history, self.client, self.accounts) = (history, client, accounts)
    }

    /// Checks the username and key with TVmaze and keeps them for `profile` (a new key starts over); its Premium level.
    @discardableResult
    public func connect(_ credentials: TVMazeAccountClient.Credentials, profile: ProfileID) async throws -> Int {
        let premium = try await TVMazeAccountClient(client: client, credentials: credentials).premium()
        try await accounts.setTVMazeAccount(TVMazeAccount(username: credentials.username, apiKey: credentials.apiKey, premium: premium),
                                            of: profile)
        return premium
    }

    /// Forgets `profile`'s account and what was synced; nothing here or there is unmarked.
    public func disconnect(profile: ProfileID) async throws {
        try await accounts.setTVMazeAccount(nil, of: profile)
    }

    /// Syncs `profile`'s account once; the outcome is also kept with the account. Nil when it has none.
    @discardableResult
    public func sync(_ profile: ProfileID) async throws -> Report? {
        guard let account = try await accounts.tvmazeAccount(of: profile) else { return nil }
        do {
            let (report, synced, premium) = try await run(profile, account: account)
            // Its end is the next one's "last sync": the marks and unmarks it made here are not changes since.
            try await accounts.recordTVMazeSync(of: profile, at: history.now(), premium: premium, outcome: report.stored, synced: synced)
            return report
        } catch {
            try await accounts.recordTVMazeSync(of: profile, at: history.now(), premium: nil, outcome: Sentence(error).stored, synced: nil)
            throw error
        }
    }

    /// Syncs every profile with an account, one after the other; each one's failure is kept with its account.
    public func syncAll() async throws {
        for profile in try await accounts.profilesWithTVMazeAccounts() {
            try Task.checkCancellation()
            _ = try? await sync(profile)
        }
    }

    /// `marks`, each naming its show: TVmaze embeds the episode, which links it; where it did not, the episode as kept
    /// here, else as TVmaze gives it.
    private func namingShows(_ marks: [TVMazeAccountClient.RemoteMark]) async throws -> [TVMazeAccountClient.RemoteMark] {
        guard marks.contains(where: { $0.showID == nil }) else { return marks }
        var kept: [Int: Episode] = [:]
        for tracked in try await history.store.trackedShows() {
            for episode in try await history.store.episodes(ofShow: tracked.show.id) { kept[episode.id] = episode }
        }
        var named: [TVMazeAccountClient.RemoteMark] = []
        for var mark in marks {
            if mark.showID == nil {
                var episode = kept[mark.episodeID]
                if episode == nil { episode = try? await client.episode(mark.episodeID, embed: [.show]) }
                mark.showID = episode?.show?.id
                mark.season = mark.season ?? episode?.season
                mark.number = mark.number ?? episode?.number
            }
            named.append(mark)
        }
        return named
    }

    private func run(_ profile: ProfileID, account: TVMazeAccount) async throws -> (Report, TVMazeSynced, Int) {
        let remote = TVMazeAccountClient(client: client, credentials: .init(username: account.username, apiKey: account.apiKey))
        let premium = try await remote.premium()
        let store = history.store
        let following = Set(try await store.following(profile).map(\.show.id))
        var marksThere: [TVMazeAccountClient.RemoteMark] = []
        if premium > 0 {
            marksThere = try await remote.marks()
        } else {
            for show in following.sorted() { marksThere += try await remote.marks(ofShow: show) }
        }
        let base = try await accounts.tvmazeSynced(of: profile)
        let sides = TVMazeSyncPlan.Sides(
            local: try await store.watched(by: profile, show: nil), unmarked: try await accounts.unmarks(of: profile),
            localFollows: following, remote: marksThere, remoteFollows: premium > 0 ? try await remote.follows() : nil,
            remoteShows: premium > 0 ? nil : following, base: base, lastSync: account.syncedAt)
        let plan = TVMazeSyncPlan(sides, markedSince: try await accounts.marksMade(by: profile, after: account.syncedAt ?? .distantPast),
                                  canUnmarkThere: premium > 0)
        var report = Report()
        var synced = plan.synced
        report.keptThere = plan.keptThere.count

        // Here first: what TVmaze says, each show kept (it names the marks) before its marks.
        var marks: [WatchedEpisode] = []
        for (show, remoteMarks) in Dictionary(grouping: try await namingShows(plan.markHere), by: \.showID) {
            guard let show, (try? await history.kept(show)) != nil else {
                report.refused += remoteMarks.count
                remoteMarks.forEach { synced.episodes.remove($0.episodeID) }
                continue
            }
            marks += remoteMarks.map { WatchedEpisode(episodeID: $0.episodeID, showID: show, season: $0.season, number: $0.number, watchedAt: $0.watchedAt) }
        }
        report.markedHere = try await store.markWatched(marks, by: profile, at: history.now())
        report.unmarkedHere = try await store.unmarkWatched(episodes: plan.unmarkHere, by: profile, at: history.now())
        for show in plan.followHere {
            _ = try await history.tracker.follow(show: show, by: profile)
            report.followedHere += 1
        }
        for show in plan.unfollowHere {
            try await history.tracker.unfollow(show: show, by: profile)
            report.unfollowedHere += 1
        }

        // Then there.
        let refused = try await remote.mark(plan.markThere)
        report.markedThere = plan.markThere.count - refused.count
        report.refused += refused.count
        synced.episodes.subtract(refused)
        for episode in plan.unmarkThere {
            try await remote.unmark(episode)
            report.unmarkedThere += 1
        }
        for show in plan.followThere {
            if try await remote.follow(show) { report.followedThere += 1 } else { synced.shows.remove(show) }
        }
        for show in plan.unfollowThere {
            try await remote.unfollow(show)
            report.unfollowedThere += 1
        }
        return (report, synced, premium)
    }
}
