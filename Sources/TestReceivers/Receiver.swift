import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 standing in for an ntfy server, a webhook's receiver, or Jellyfin and Plex
/// being told to reload: it records every request (method, path, headers, body) and answers each path from a script of
/// statuses, the last repeating, with a JSON body where one is set.
public final class Receiver: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// By lower-case name.
        public var headers: [String: String]
        public var body: Data

        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    private let state = NIOLockedValueBox<(statuses: [String: [Int]], requests: [Request], bodies: [String: String])>(([:], [], [:]))
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

    public var requests: [Request] { state.withLockedValue { $0.requests } }

    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: NIOLockedValueBox<(statuses: [String: [Int]], requests: [Request], bodies: [String: String])>
        var head: HTTPRequestHead?
        var body = Data()

        init(state: NIOLockedValueBox<(statuses: [String: [Int]], requests: [Request], bodies: [String: String])>) { self.state = state }

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
                let (status, json) = state.withLockedValue { state -> (Int, String?) in
                    state.requests.append(Request(method: head.method.rawValue, path: path, headers: headers, body: body))
                    guard var script = state.statuses[path], let first = script.first else { return (200, state.bodies[path]) }
                    if script.count > 1 { script.removeFirst(); state.statuses[path] = script }
                    return (first, state.bodies[path])
                }
                let reply = Array((json ?? "status \(status)\n").utf8)
                var responseHeaders = HTTPHeaders([("Content-Length", String(reply.count)),
                                                   ("Content-Type", json == nil ? "text/plain" : "application/json")])
                responseHeaders.add(name: "Connection", value: "keep-alive")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status),
                                                                     headers: responseHeaders))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                self.head = nil
            }
        }
    }
}
