import Foundation
import GuideCore
import GuideHTTPServing
import GuideIngest
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// Refresh progress as server-sent events (`text/event-stream`), for the admin's live view: a `progress` event with
/// a ``ProgressDocument`` whenever it changes (at most four a second), a comment every 15 s so proxies keep the
/// connection, and an end after a minute (the browser reconnects at once and gets the latest state first) or when
/// the server shuts down, so a shutdown never waits on a watcher.
enum RefreshEvents {
    static let spacing: Duration = .milliseconds(250)
    static let heartbeat: Duration = .seconds(15)
    static let lifetime: Duration = .seconds(60)

    /// Watchers at once: 16 in all, 4 from one client address (a few tabs).
    static func slots() -> OpenSlots { OpenSlots(total: 16, perClient: 4) }

    /// The stream, holding one of `slots` for `client` while it lasts (its failures in `words`); 429 when none is free.
    static func response(_ scheduler: RefreshScheduler, slots: OpenSlots, client: String, words: Localizer) throws -> Response {
        guard let hold = slots.hold(client) else {
            throw Refusal(.tooManyRequests, headers: [.retryAfter: "10"],
                          saying: "Too many progress watchers are open; close a tab or try again shortly.")
        }
        let headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                                   HTTPField.Name("X-Accel-Buffering")!: "no"]
        // Paced by the scheduler's clock, as everything that waits is.
        let clock = scheduler.clock
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            withExtendedLifetime(hold) {}
            // A watcher that stops reading holds at most the 4 newest events: each is the whole state, so older ones
            // can go.
            let (events, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(4))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await progress in scheduler.updates() {
                        sink.yield(event(progress, words: words))
                        try await clock.sleep(for: spacing)
                    }
                }
                group.addTask {
                    while true {
                        try await clock.sleep(for: heartbeat)
                        sink.yield(": still here\n\n")
                    }
                }
                group.addTask {
                    try await clock.sleep(for: lifetime)
                    sink.finish()
                }
                try await withGracefulShutdownHandler {
                    try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                    for await text in events {
                        try await writer.write(ByteBuffer(string: text))
                    }
                } onGracefulShutdown: {
                    sink.finish()
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        })
    }

    /// One `progress` event.
    static func event(_ progress: RefreshProgress, words: Localizer) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(ProgressDocument(progress, words: words))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: progress\ndata: \(json)\n\n"
    }
}

/// A refresh's progress as the admin page's script and `GET /api/refresh` see it.
struct ProgressDocument: Codable, Sendable, ResponseEncodable {
    struct Source: Codable, Sendable {
        var name: String
        /// waiting, downloading, importing, imported, unchanged or failed.
        var phase: String
        var downloadsDone: Int
        var downloadsTotal: Int
        var error: String?
        var feeds: [Feed]
    }

    struct Feed: Codable, Sendable {
        var location: String
        var bytes: Int64
        /// Known when the server sent a length; then `percent` too. Otherwise `programmes` tells how far it got.
        var totalBytes: Int64?
        var percent: Int?
        var programmes: Int
        var attempt: Int
        var retryReason: String?
    }

    var running: Bool
    var downloadsDone: Int
    var downloadsTotal: Int
    var sources: [Source]

    /// Failures and retry reasons in `words`' language (English for the JSON API).
    init(_ progress: RefreshProgress?, words: Localizer = .english) {
        running = !(progress?.isFinished ?? true)
        downloadsDone = progress?.downloadsDone ?? 0
        downloadsTotal = progress?.downloadsTotal ?? 0
        sources = (progress?.sources ?? []).map { source in
            Source(name: source.name, phase: source.phase.rawValue, downloadsDone: source.downloadsDone,
                   downloadsTotal: source.downloadsTotal, error: source.error?.worded(words),
                   feeds: source.feeds.map { feed in
                       Feed(location: feed.location, bytes: feed.bytes, totalBytes: feed.totalBytes,
                            percent: feed.fraction.map { Int($0 * 100) }, programmes: feed.programmes, attempt: feed.attempt,
                            retryReason: feed.retryReason?.worded(words))
                   })
        }
    }
}
