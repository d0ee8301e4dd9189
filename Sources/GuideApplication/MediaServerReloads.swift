import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import Recorders

/// Tells media servers to reload their guide when the listings a feed carries change (``ReloadTarget``), as their
/// APIs document it:
///
/// - **Jellyfin**: `GET /ScheduledTasks` finds the task whose `Key` is `RefreshGuide`, then
///   `POST /ScheduledTasks/Running/{Id}` starts it; both with `Authorization: MediaBrowser Token="API-KEY"`.
/// - **Plex**: `GET /livetv/dvrs` lists the DVRs (`MediaContainer.Dvr[].key`), then
///   `POST /livetv/dvrs/{key}/reloadGuide` for each; both with `X-Plex-Token`.
/// - **Webhook**: `POST` of `{"event": "listings-changed", "feed", "fingerprint", "at"}`, signed like reminders'
///   webhooks (`X-Tvguide-Signature: sha256=HMAC`) when it has a secret.
///
/// "Changed" is the feed's fingerprint (its channels and every programme's id, start and end) differing from the one
/// the target was last told successfully; a failed call is tried again on the next round. Each call has 15 s.
public struct MediaServerReloads: Sendable {
    public let store: any GuideDatabase
    public let feeds: LineupFeeds
    public let transport: any HTTPTransport
    public let now: @Sendable () -> Date

    /// The most of a media server's answer read (its task or DVR list).
    public static let largestAnswer = 1024 * 1024
    public static let timeLimit: Duration = .seconds(15)

    public init(store: any GuideDatabase, feeds: LineupFeeds, transport: any HTTPTransport, now: @escaping @Sendable () -> Date) {
        (self.store, self.feeds, self.transport, self.now) = (store, feeds, transport, now)
    }

    /// After every import (a new generation, looked for each minute) and every 15 minutes (a failed call again; a
    /// new day moves a feed's days), every target whose feed changed is told.
    public func run(clock: any Clock<Duration>, report: @escaping @Sendable (String) -> Void) async {
        await afterEveryImport(of: store, atLeastEvery: 900, now: now, clock: clock) {
            for (name, outcome) in try await tellChanged() where !outcome.succeeded { report("Reloading \(name): \(outcome.text)") }
        } failed: { error in
            report("Media servers could not be told about new listings: \(error)")
        }
    }

    /// Tells every target whose feed's listings changed since it was last told (or that never was); each call's
    /// target and outcome.
    @discardableResult
    public func tellChanged() async throws -> [(target: String, outcome: (text: String, succeeded: Bool))] {
        let targets = try await store.reloadTargets()
        guard !targets.isEmpty else { return [] }
        let byID = Dictionary(try await store.lineupFeeds().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var fingerprints: [Int64: String] = [:]
        var told: [(String, (String, Bool))] = []
        for target in targets {
            guard let feed = byID[target.feed] else { continue }
            let fingerprint: String
            if let known = fingerprints[feed.id] { fingerprint = known } else {
                fingerprint = try await feeds.fingerprint(of: feed)
                fingerprints[feed.id] = fingerprint
            }
            guard fingerprint != target.fingerprint else { continue }
            told.append(("\(target.kind.rawValue) \(target.address)", try await tell(target, feed: feed, fingerprint: fingerprint)))
        }
        return told
    }

    /// Calls `target` now and keeps the outcome (and, when it succeeded, `fingerprint` as what it was told).
    public func tell(_ target: ReloadTarget, feed: LineupFeed, fingerprint: String) async throws -> (text: String, succeeded: Bool) {
        let outcome: (text: String, succeeded: Bool)
        do {
            outcome = try await withTimeLimit(Self.timeLimit) { try await call(target, feed: feed, fingerprint: fingerprint) }
                ?? ("no answer within \(Self.timeLimit.components.seconds) s", false)
        } catch {
            outcome = ("could not be reached: \(error)", false)
        }
        try await store.recordReload(of: target.id, outcome: outcome.text, succeeded: outcome.succeeded, at: now(),
                                     fingerprint: outcome.succeeded ? fingerprint : nil)
        return outcome
    }

    private func call(_ target: ReloadTarget, feed: LineupFeed, fingerprint: String) async throws -> (text: String, succeeded: Bool) {
        switch target.kind {
        case .jellyfin:
            let jellyfin = JellyfinServer(address: target.address, key: target.secret ?? "", kind: .jellyfin, transport: transport)
            do {
                try await jellyfin.refreshGuide()
                return ("Jellyfin started its Refresh Guide task", true)
            } catch {
                return (error.description, false)
            }
        case .plex:
            let plex = PlexServer(address: target.address, token: target.secret ?? "", transport: transport, largest: Self.largestAnswer, deadline: Self.timeLimit)
            let keys: [String]
            do {
                keys = try await plex.dvrs()
            } catch {
                return (Self.words(error, of: "Plex", asking: "the DVR list", check: "the token"), false)
            }
            guard !keys.isEmpty else { return ("Plex has no DVR: set up Live TV & DVR with this feed first", false) }
            for key in keys {
                do {
                    try await plex.reloadGuide(of: key)
                } catch {
                    return (Self.words(error, of: "Plex", asking: "reloading DVR \(key)'s guide", check: "the token"), false)
                }
            }
            return ("Plex reloads the guide of \(keys.count) DVR\(keys.count == 1 ? "" : "s")", true)
        case .webhook:
            let payload: [String: Any] = ["event": "listings-changed", "feed": feed.name, "fingerprint": fingerprint, "at": CivilTime.iso8601(now())]
            let body = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
            var headers: [(String, String)] = []
            if let secret = target.secret, !secret.isEmpty {
                headers.append(("X-Tvguide-Signature", "sha256=" + ReminderSenders.signature(of: body, secret: secret)))
            }
            var call = JSONCall(transport: transport, largest: Self.largestAnswer, deadline: Self.timeLimit)
            call.cutsLongAnswers = true
            do {
                let status = try await call.exchange("POST", target.address, headers: headers, body: .json(body)).status
                return ("The webhook answered \(status)", (200..<300).contains(status))
            } catch {
                return (Self.words(error, of: "The webhook", asking: "the listings' change", check: "the address"), false)
            }
        }
    }

    /// A call's failure in the words the feeds page shows.
    static func words(_ failure: JSONCall.Failure, of who: String, asking what: String, check: String) -> String {
        who + " " + words(failure, asking: what, check: check)
    }

    private static func words(_ failure: JSONCall.Failure, asking what: String, check: String) -> String {
        switch failure {
        case .status(let status, _): "answered \(status) to \(what)\(status == 401 ? ": check \(check)" : "")"
        case .timedOut(let limit): "no answer within \(limit.components.seconds) s"
        case .tooLarge(let limit): "answered \(what) with more than \(limit >> 10) KB"
        case .undecodable(let error): "did not answer \(what) as its API does: \(error)"
        case .notAnAddress: "is not at an http or https address"
        case .refused(let refusal): "is refused by this server's outbound rules: \(refusal.reason)"
        case .challenge(let challenge): "asks for \(challenge)"
        case .unreachable(let error): "could not be reached: \(error)"
        }
    }
}
