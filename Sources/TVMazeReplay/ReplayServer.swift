import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Test support: a real HTTP/1.1 server on 127.0.0.1 replaying TVmaze's recorded answers (Fixtures/tvmaze/manifest.json:
/// method, path and query to file, status and headers; the `preferred` entry when several match), then the answers
/// composed from them for the web pages' flow (Fixtures/composed). Tests can put scripted answers in front of a path
/// (429 with Retry-After, 500, slow answers); those are synthetic and say so. It records every request it receives,
/// with when. `/v1/...` is one account's user API (``UserAccountStandIn``), synthetic too.
public final class ReplayServer: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(String, String)] = []
        public var body: [UInt8] = []
        /// Wait this long before answering (a slow server).
        public var delay: TimeAmount = .zero

        public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], delay: TimeAmount = .zero) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
        }

        /// SYNTHETIC: a 429 as TVmaze sends it under load, with a Retry-After when given.
        public static func tooManyRequests(retryAfter: Int? = nil) -> Answer {
            Answer(status: 429, headers: retryAfter.map { [("Retry-After", String($0))] } ?? [],
                   body: Array(#"{"name":"Too Many Requests","message":"API rate limit exceeded","code":0,"status":429}"#.utf8))
        }
    }

    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [String: [String]]
        public var at: NIODeadline
    }

    private struct Recording {
        var query: [String: [String]]
        var answer: Answer
        var preferred: Bool
    }

    public static let fixtures = Bundle.module.url(forResource: "tvmaze", withExtension: nil)!
    static let composed = Bundle.module.url(forResource: "composed", withExtension: nil)!

    private let recordings: [String: [Recording]]
    private let state = NIOLockedValueBox<(scripts: [String: [Answer]], requests: [Request])>(([:], []))
    private let channel: any Channel
    public let port: Int
    /// The TVmaze account the user API answers for.
    public let account: UserAccountStandIn

    /// The first of the copies of Under the Dome a benchmark asks for: show `cloneBase + k`, its episodes numbered
    /// from `(cloneBase + k) * 100`.
    public static let cloneBase = 1000

    /// Listening on `port` (0: any free one). With `clones`, also shows 1000 to 1000 + clones - 1: copies of Under the
    /// Dome's recorded show and episodes under new ids and names ("Under the Dome 1000"), for benchmarks of many shows.
    public init(port wanted: Int = 0, clones: Int = 0) async throws {
        var loaded = try Self.loadManifest(in: Self.fixtures)
        for (path, composed) in try Self.loadManifest(in: Self.composed) { loaded[path, default: []] += composed }
        if clones > 0 { try Self.clone(clones, into: &loaded) }
        let recordings = loaded
        self.recordings = recordings
        let account = UserAccountStandIn(recordedEpisodes: UserAccountStandIn.episodes(
            in: recordings.mapValues { $0.map { ($0.answer.body, $0.answer.status) } }))
        self.account = account
        let box = state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(state: box, recordings: recordings, account: account))
                }
            }
            .bind(host: "127.0.0.1", port: wanted).get()
        port = channel.localAddress?.port ?? 0
    }

    public func stop() async throws {
        try await channel.close()
    }

    public var base: String { "http://127.0.0.1:\(port)" }

    /// Answers the next requests to `path` with `answers`, in order, before the recordings take over again.
    public func script(_ path: String, _ answers: Answer...) {
        state.withLockedValue { $0.scripts[path, default: []].append(contentsOf: answers) }
    }

    public var requests: [Request] { state.withLockedValue { $0.requests } }

    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    /// SYNTHETIC copies of show 1 and its episodes (see ``init(port:clones:)``).
    private static func clone(_ count: Int, into recordings: inout [String: [Recording]]) throws {
        func body(_ path: String) throws -> [String: Any]? {
            guard let recording = recordings[path]?.first(where: { $0.query.isEmpty && $0.answer.status == 200 }) else { return nil }
            return try JSONSerialization.jsonObject(with: Data(recording.answer.body)) as? [String: Any]
        }
        guard let show = try body("/shows/1"),
              let episodes = try recordings["/shows/1/episodes"]?.first(where: { $0.query.isEmpty })
                .flatMap({ try JSONSerialization.jsonObject(with: Data($0.answer.body)) as? [[String: Any]] }) else {
            throw ReplayError("no recording of /shows/1 and its episodes to copy")
        }
        let json = [("Content-Type", "application/json; charset=UTF-8")]
        for id in cloneBase..<(cloneBase + count) {
            var copy = show
            copy["id"] = id
            copy["name"] = "Under the Dome \(id)"
            recordings["/shows/\(id)"] = [Recording(query: [:], answer: Answer(status: 200, headers: json,
                                                                               body: [UInt8](try JSONSerialization.data(withJSONObject: copy))), preferred: true)]
            let list = episodes.enumerated().map { index, episode -> [String: Any] in
                var copy = episode
                copy["id"] = id * 100 + index
                return copy
            }
            let answer = Answer(status: 200, headers: json, body: [UInt8](try JSONSerialization.data(withJSONObject: list)))
            recordings["/shows/\(id)/episodes"] = [Recording(query: [:], answer: answer, preferred: true),
                                                   Recording(query: ["specials": ["1"]], answer: answer, preferred: true)]
        }
    }

    private static func loadManifest(in folder: URL) throws -> [String: [Recording]] {
        let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        guard let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = manifest["entries"] as? [[String: Any]] else { throw ReplayError("manifest.json has no entries") }
        var recordings: [String: [Recording]] = [:]
        for entry in entries {
            guard let request = entry["request"] as? [String: Any], let path = request["path"] as? String,
                  let response = entry["response"] as? [String: Any], let status = response["status"] as? Int else { continue }
            var query: [String: [String]] = [:]
            for (name, value) in request["query"] as? [String: Any] ?? [:] {
                query[name] = (value as? [String]) ?? [String(describing: value)]
            }
            let headers = (response["headers"] as? [String: String] ?? [:]).map { ($0.key, $0.value) }
            let body = try (entry["file"] as? String).map { [UInt8](try Data(contentsOf: folder.appendingPathComponent($0))) } ?? []
            recordings[path, default: []].append(Recording(query: query, answer: Answer(status: status, headers: headers, body: body),
                                                           preferred: entry["preferred"] as? Bool ?? false))
        }
        return recordings
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let state: NIOLockedValueBox<(scripts: [String: [Answer]], requests: [Request])>
        let recordings: [String: [Recording]]
        let account: UserAccountStandIn
        private var head: HTTPRequestHead?
        private var body: [UInt8] = []

        init(state: NIOLockedValueBox<(scripts: [String: [Answer]], requests: [Request])>, recordings: [String: [Recording]],
             account: UserAccountStandIn) {
            (self.state, self.recordings, self.account) = (state, recordings, account)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(let part):
                if body.count < 1 << 20 { body += part.readableBytesView }
            case .end:
                guard let head else { return }
                let (path, query) = Self.split(head.uri)
                let scripted = state.withLockedValue { state -> Answer? in
                    state.requests.append(Request(method: head.method.rawValue, path: path, query: query, at: .now()))
                    guard var scripted = state.scripts[path], !scripted.isEmpty else { return nil }
                    let next = scripted.removeFirst()
                    state.scripts[path] = scripted
                    return next
                }
                let answer = scripted ?? account.answer(head.method.rawValue, path, authorization: head.headers.first(name: "Authorization"),
                                                        body: body) ?? recorded(path, query)
                let keepAlive = head.isKeepAlive
                if answer.delay == .zero {
                    send(answer, keepAlive: keepAlive, context: context)
                } else {
                    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                    context.eventLoop.scheduleTask(in: answer.delay) {
                        guard bound.value.channel.isActive else { return }
                        self.send(answer, keepAlive: keepAlive, context: bound.value)
                    }
                }
            }
        }

        private func recorded(_ path: String, _ query: [String: [String]]) -> Answer {
            // SYNTHETIC: TVmaze answers a lookup with a redirect to the show; the show it leads to is recorded.
            if path == "/lookup/shows" {
                if query["thetvdb"] == ["264492"] || query["imdb"] == ["tt1553656"] {
                    return Answer(status: 301, headers: [("Location", "/shows/1")])
                }
                return Answer(status: 404, body: Array(#"{"name":"Not Found","message":"","code":0,"status":404}"#.utf8))
            }
            let matches = (recordings[path] ?? []).filter { $0.query == query }
            if let match = matches.first(where: \.preferred) ?? matches.first { return match.answer }
            // Past the recorded index pages, TVmaze's index ends with a 404.
            return Answer(status: 404, body: Array(#"{"name":"Not Found","message":"Page not found.","code":0,"status":404}"#.utf8))
        }

        private func send(_ answer: Answer, keepAlive: Bool, context: ChannelHandlerContext) {
            var headers = HTTPHeaders(answer.headers)
            headers.replaceOrAdd(name: "Content-Length", value: String(answer.body.count))
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }

        static func split(_ uri: String) -> (String, [String: [String]]) {
            let parts = uri.split(separator: "?", maxSplits: 1)
            var query: [String: [String]] = [:]
            if parts.count > 1 {
                for pair in parts[1].split(separator: "&") {
                    let sides = pair.split(separator: "=", maxSplits: 1).map {
                        String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                    }
                    query[sides[0], default: []].append(sides.count > 1 ? sides[1] : "")
                }
            }
            return (String(parts.first ?? ""), query)
        }
    }
}

public struct ReplayError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
