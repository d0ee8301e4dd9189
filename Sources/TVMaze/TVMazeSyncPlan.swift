import Foundation
import GuideCore
import GuideStore

/// What one sync with a TVmaze account changes on each side: a three-way merge of the marks and follows here, those
/// there, and what both had at the last sync (the base). A change on one side since the last sync is carried to the
/// other; when both sides changed the same episode, the later one wins: an unmark here (its time is kept) against a
/// mark there (TVmaze gives the time watched, which is no later than when it was marked).
public struct TVMazeSyncPlan: Sendable, Equatable {
    /// Marks to keep here (new there, or a time known there and not here).
    public var markHere: [TVMazeAccountClient.RemoteMark] = []
    public var unmarkHere: [Int] = []
    /// Marks to send (new here, or a time known here and not there).
    public var markThere: [WatchedEpisode] = []
    /// Unmarks to send.
    public var unmarkThere: [Int] = []
    /// Unmarks TVmaze will not take (without Premium): marked there, unmarked here, and left so.
    public var keptThere: [Int] = []
    public var followHere: [Int] = []
    public var unfollowHere: [Int] = []
    public var followThere: [Int] = []
    public var unfollowThere: [Int] = []
    /// What both sides have once the plan is carried out: the next sync's base.
    public var synced = TVMazeSynced()

    /// What is here and there, and was at the last sync.
    public struct Sides: Sendable {
        public var local: [WatchedEpisode]
        /// When episodes not marked here were unmarked since the last sync.
        public var unmarked: [Int: Date]
        public var localFollows: Set<Int>
        public var remote: [TVMazeAccountClient.RemoteMark]
        /// The account's follows; nil without Premium (TVmaze does not say).
        public var remoteFollows: Set<Int>?
        /// The shows whose marks there were read; nil when all were (Premium). Other shows' marks are only sent.
        public var remoteShows: Set<Int>?
        public var base: TVMazeSynced
        public var lastSync: Date?

        public init(local: [WatchedEpisode], unmarked: [Int: Date], localFollows: Set<Int>, remote: [TVMazeAccountClient.RemoteMark],
                    remoteFollows: Set<Int>?, remoteShows: Set<Int>?, base: TVMazeSynced, lastSync: Date?) {
            (self.local, self.unmarked, self.localFollows, self.remote) = (local, unmarked, localFollows, remote)
            (self.remoteFollows, self.remoteShows, self.base, self.lastSync) = (remoteFollows, remoteShows, base, lastSync)
        }
    }

    public init() {}

    /// The plan for `sides`; `markedSince` are the episodes marked here since the last sync, `canUnmarkThere` whether
    /// the account has Premium.
    public init(_ sides: Sides, markedSince: Set<Int>, canUnmarkThere: Bool) {
        let here = Dictionary(sides.local.map { ($0.episodeID, $0) }, uniquingKeysWith: { first, _ in first })
        let there = Dictionary(sides.remote.map { ($0.episodeID, $0) }, uniquingKeysWith: { first, _ in first })
        let lastSync = sides.lastSync ?? .distantPast
        var synced = Set<Int>()
        for id in Set(here.keys).union(there.keys).union(sides.base.episodes) {
            let mine = here[id], theirs = there[id], wasSynced = sides.base.episodes.contains(id)
            // A show whose marks there were not read: only what is new here goes.
            let known = theirs != nil || sides.remoteShows.map { shows in mine.map { shows.contains($0.showID) } ?? false } ?? true
            switch (mine, theirs) {
            case let (mine?, theirs?):
                if mine.watchedAt == nil, theirs.watchedAt != nil { markHere.append(theirs) }
                if theirs.watchedAt == nil, mine.watchedAt != nil { markThere.append(mine) }
                synced.insert(id)
            case let (mine?, nil):
                if !known {
                    if !wasSynced { markThere.append(mine) }
                    synced.insert(id)
                } else if !wasSynced || markedSince.contains(id) {
                    // New here, or marked here again after it was unmarked there.
                    markThere.append(mine)
                    synced.insert(id)
                } else {
                    unmarkHere.append(id)
                }
            case let (nil, theirs?):
                let unmarked = sides.unmarked[id]
                // Unmarked here (since the last sync, or before it when both had it then) against marked there.
                let unmarkWins: Bool
                if let unmarked {
                    unmarkWins = theirs.watchedAt.map { $0 < unmarked } ?? wasSynced
                } else {
                    unmarkWins = wasSynced && (theirs.watchedAt.map { $0 <= lastSync } ?? true)
                }
                if unmarkWins {
                    if canUnmarkThere {
                        unmarkThere.append(id)
                    } else {
                        keptThere.append(id)
                        synced.insert(id)
                    }
                } else {
                    markHere.append(theirs)
                    synced.insert(id)
                }
            case (nil, nil):
                break
            }
        }
        self.synced.episodes = synced
        self.synced.shows = sides.remoteFollows.map(mergeFollows) ?? sides.base.shows
        for list in [\Self.unmarkHere, \.unmarkThere, \.keptThere, \.followHere, \.unfollowHere, \.followThere, \.unfollowThere] { self[keyPath: list].sort() }
        markHere.sort { $0.episodeID < $1.episodeID }
        markThere.sort { $0.episodeID < $1.episodeID }

        func mergeFollows(_ remoteFollows: Set<Int>) -> Set<Int> {
            mergeShows(local: sides.localFollows, remote: remoteFollows, base: sides.base.shows)
        }
    }

    /// The follows' part of the merge; the shows followed on both sides afterwards.
    private mutating func mergeShows(local: Set<Int>, remote remoteFollows: Set<Int>, base: Set<Int>) -> Set<Int> {
        var shows = Set<Int>()
        for id in local.union(remoteFollows).union(base) {
            let mine = local.contains(id), theirs = remoteFollows.contains(id), wasSynced = base.contains(id)
            switch (mine, theirs) {
            case (true, true): shows.insert(id)
            case (true, false):
                if wasSynced { unfollowHere.append(id) } else { followThere.append(id); shows.insert(id) }
            case (false, true):
                if wasSynced { unfollowThere.append(id) } else { followHere.append(id); shows.insert(id) }
            case (false, false): break
            }
        }
        return shows
    }

    /// Whether the sync changes nothing on either side.
    public var isEmpty: Bool {
        markHere.isEmpty && unmarkHere.isEmpty && markThere.isEmpty && unmarkThere.isEmpty && followHere.isEmpty && unfollowHere.isEmpty
            && followThere.isEmpty && unfollowThere.isEmpty
    }
}
