import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 standing in for an ntfy server, a webhook's receiver, or Jellyfin and Plex
/// being told to reload: it records every request (method, path, headers, body) and answers each path from a script of
/// statuses, the last repeating, with a JSON body where one is set; a path may redirect elsewhere, or answer its
/// head at once and then trickle its body a byte a second (a receiver that holds a sender up).
public final class Receiver: Sendable {
    struct Script {
        var statuses: [String: [Int]] = [:]
        var requests: [Request] = []
        var bodies: [String: String] = [:]
        var locations: [String: String] = [:]
        var trickling: Set<String> = []
        var responders: [(prefix: String, answer: @Sendable (Request) -> Answer)] = []
    }

    /// An answer a responder makes for a request.
    public struct Answer: Sendable {
        public var status: Int
        public var json: String
        /// Headers besides Content-Length and Content-Type (a challenge's `WWW-Authenticate`).
        public var headers: [(String, String)]
        public var contentType: String
        /// A body that is not text (an image), sent instead of `json`.
        public var bytes: [UInt8]?

        public init(status: Int = 200, json: String, headers: [(String, String)] = []) {
            (self.status, self.json, self.headers, self.contentType) = (status, json, headers, "application/json")
        }

        /// A body of bytes (an image).
        public init(status: Int = 200, bytes: [UInt8], contentType: String, headers: [(String, String)] = []) {
            (self.status, self.json, self.bytes, self.headers, self.contentType) = (status, "", bytes, headers, contentType)
        }

        /// A body that is not JSON (an XMLTV export).
        public init(status: Int = 200, body: String, contentType: String, headers: [(String, String)] = []) {
            (self.status, self.json, self.headers, self.contentType) = (status, body, headers, contentType)
        }
    }

    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// By lower-case name.
        public var headers: [String: String]
        public var body: Data
        /// The query, as sent.
        public var query = ""

        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    private let state = NIOLockedValueBox<Script>(Script())
    private let channel: any Channel
    public let port: Int

    public init() async throws {
        let state = self.state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(Handler(state: state)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    public func stop() async throws { try await channel.close() }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Answers `path` with these statuses in turn, the last repeating (200 when none is set).
    public func answer(_ path: String, with statuses: [Int]) {
        state.withLockedValue { $0.statuses[path] = statuses }
    }

    /// Answers `path` with `json` as the body (and `application/json`).
    public func answer(_ path: String, json: String) {
        state.withLockedValue { $0.bodies[path] = json }
    }

    /// Answers `path` with `status` (a redirect) and `Location: location`.
    public func redirect(_ path: String, to location: String, status: Int = 302) {
        state.withLockedValue { $0.statuses[path] = [status]; $0.locations[path] = location }
    }

    /// Answers every request whose path starts with `prefix` by `answer` (the longest prefix set wins): a stand-in
    /// for a service whose answers depend on what is asked.
    public func respond(_ prefix: String, _ answer: @escaping @Sendable (Request) -> Answer) {
        state.withLockedValue { $0.responders.append((prefix, answer)); $0.responders.sort { $0.prefix.count > $1.prefix.count } }
    }

    /// Answers `path`'s head at once (200, 4 KB to come) and then one byte of the body a second.
    public func trickle(_ path: String) {
        state.withLockedValue { _ = $0.trickling.insert(path) }
    }

    public var requests: [Request] { state.withLockedValue { $0.requests } }

    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: NIOLockedValueBox<Script>
        var head: HTTPRequestHead?
        var body = Data()

        init(state: NIOLockedValueBox<Script>) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = Data()
            case .body(var buffer):
                body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
            case .end:
                guard let head else { return }
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
                var extraHeaders: [(String, String)] = []
                var contentType = "application/json"
                var bytes: [UInt8]?
                let (status, json, location, trickles) = state.withLockedValue { state -> (Int, String?, String?, Bool) in
                    let request = Request(method: head.method.rawValue, path: path, headers: headers, body: body,
                                          query: String(head.uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""))
                    state.requests.append(request)
                    if let responder = state.responders.first(where: { path.hasPrefix($0.prefix) }) {
                        let answer = responder.answer(request)
                        (extraHeaders, contentType, bytes) = (answer.headers, answer.contentType, answer.bytes)
                        return (answer.status, answer.json, nil, false)
                    }
                    let extra = (state.bodies[path], state.locations[path], state.trickling.contains(path))
                    guard var script = state.statuses[path], let first = script.first else { return (200, extra.0, extra.1, extra.2) }
                    if script.count > 1 { script.removeFirst(); state.statuses[path] = script }
                    return (first, extra.0, extra.1, extra.2)
                }
                if trickles {
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok,
                                                                                 headers: ["Content-Length": "4096"]))), promise: nil)
                    let channel = context.channel
                    channel.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { task in
                        guard channel.isActive else { return task.cancel() }
                        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: [0x20]))), promise: nil)
                    }
                    self.head = nil
                    return
                }
                let reply = bytes ?? Array((json ?? "status \(status)\n").utf8)
                var responseHeaders = HTTPHeaders([("Content-Length", String(reply.count)),
                                                   ("Content-Type", json == nil ? "text/plain" : contentType)])
                responseHeaders.add(name: "Connection", value: "keep-alive")
                for (name, value) in extraHeaders { responseHeaders.add(name: name, value: value) }
                if let location { responseHeaders.add(name: "Location", value: location) }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status),
                                                                     headers: responseHeaders))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                self.head = nil
            }
        }
    }
}
