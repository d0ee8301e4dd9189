import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore

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
        let base = target.address.hasSuffix("/") ? String(target.address.dropLast()) : target.address
        switch target.kind {
        case .jellyfin:
            let headers = [("Authorization", "MediaBrowser Token=\"\(target.secret ?? "")\""), ("Accept", "application/json")]
            let (status, tasks) = try await json("GET", base + "/ScheduledTasks?isHidden=false", headers)
            guard status == 200 else { return ("Jellyfin answered \(status) to the task list\(status == 401 ? ": check the API key" : "")", false) }
            guard let id = (tasks as? [[String: Any]])?.first(where: { $0["Key"] as? String == "RefreshGuide" })?["Id"] as? String,
                  id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                return ("Jellyfin has no Refresh Guide task: is Live TV set up?", false)
            }
            let (started, _) = try await json("POST", base + "/ScheduledTasks/Running/" + id, headers)
            return (200..<300).contains(started) ? ("Jellyfin started its Refresh Guide task (\(started))", true)
                : ("Jellyfin answered \(started) to starting Refresh Guide", false)
        case .plex:
            let headers = [("X-Plex-Token", target.secret ?? ""), ("Accept", "application/json")]
            let (status, answer) = try await json("GET", base + "/livetv/dvrs", headers)
            guard status == 200 else { return ("Plex answered \(status) to the DVR list\(status == 401 ? ": check the token" : "")", false) }
            let dvrs = ((answer as? [String: Any])?["MediaContainer"] as? [String: Any])?["Dvr"] as? [[String: Any]] ?? []
            let keys = dvrs.compactMap { ($0["key"] as? String) ?? ($0["key"] as? Int).map(String.init) }
                .filter { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber } }
            guard !keys.isEmpty else { return ("Plex has no DVR: set up Live TV & DVR with this feed first", false) }
            for key in keys {
                let (reloaded, _) = try await json("POST", base + "/livetv/dvrs/\(key)/reloadGuide", headers)
                guard (200..<300).contains(reloaded) else { return ("Plex answered \(reloaded) to reloading DVR \(key)'s guide", false) }
            }
            return ("Plex reloads the guide of \(keys.count) DVR\(keys.count == 1 ? "" : "s")", true)
        case .webhook:
            let payload: [String: Any] = ["event": "listings-changed", "feed": feed.name, "fingerprint": fingerprint, "at": CivilTime.iso8601(now())]
            let body = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
            var headers = [("Content-Type", "application/json")]
            if let secret = target.secret, !secret.isEmpty {
                headers.append(("X-Tvguide-Signature", "sha256=" + ReminderSenders.signature(of: body, secret: secret)))
            }
            let (status, _) = try await json("POST", target.address, headers, body: body)
            return ("The webhook answered \(status)", (200..<300).contains(status))
        }
    }

    /// Sends a request and reads its answer as JSON (at most ``largestAnswer`` bytes; nil when it is not JSON).
    private func json(_ method: String, _ address: String, _ headers: [(String, String)], body: Data? = nil) async throws -> (Int, Any?) {
        guard let url = URL(string: address) else { throw StoreError(.invalid, saying: "{address} is not an address", ["address": address]) }
        let reply = try await transport.send(method, url, headers: headers, body: body)
        var bytes = Data()
        while let part = try await reply.next() {
            bytes.append(contentsOf: part.readableBytesView)
            if bytes.count > Self.largestAnswer { return (reply.status, nil) }
        }
        return (reply.status, try? JSONSerialization.jsonObject(with: bytes))
    }
}
