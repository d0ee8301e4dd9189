import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 standing in for an ntfy server and a webhook's receiver: it records every
/// request (method, path, headers, body) and answers each path from a script of statuses, the last repeating.
public final class Receiver: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// By lower-case name.
        public var headers: [String: String]
        public var body: Data

        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    private let state = NIOLockedValueBox<(statuses: [String: [Int]], requests: [Request])>(([:], []))
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

    public var requests: [Request] { state.withLockedValue { $0.requests } }

    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: NIOLockedValueBox<(statuses: [String: [Int]], requests: [Request])>
        var head: HTTPRequestHead?
        var body = Data()

        init(state: NIOLockedValueBox<(statuses: [String: [Int]], requests: [Request])>) { self.state = state }

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
                let status = state.withLockedValue { state -> Int in
                    state.requests.append(Request(method: head.method.rawValue, path: path, headers: headers, body: body))
                    guard var script = state.statuses[path], let first = script.first else { return 200 }
                    if script.count > 1 { script.removeFirst(); state.statuses[path] = script }
                    return first
                }
                let reply = Array("status \(status)\n".utf8)
                var responseHeaders = HTTPHeaders([("Content-Length", String(reply.count)), ("Content-Type", "text/plain")])
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
