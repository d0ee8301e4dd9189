import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 (SwiftNIO, raw bytes on a TCP socket) that serves the fixtures and
/// misbehaves on purpose: no Content-Length, a slow drip, a connection cut mid-body, 429 with Retry-After, 500s,
/// 304s for conditional requests, redirect loops, bodies larger than they said. Each path answers from a script of
/// replies, one per request, the last repeating.
final class MisbehavingServer: Sendable {
    struct Reply: Sendable {
        var status = 200
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// Send a Content-Length header (and keep the connection); without it the body ends when the connection closes.
        var sendsLength = true
        /// Body bytes per write, and the pause between writes.
        var chunk = 64 * 1024
        var pause: TimeAmount = .zero
        /// Close the connection after this many body bytes, whatever the header said.
        var cutAfter: Int?
        /// Answer 304 when the request's If-None-Match is this.
        var etag: String?

        static func file(_ body: [UInt8], sendsLength: Bool = true, headers: [(String, String)] = []) -> Reply {
            Reply(headers: headers, body: body, sendsLength: sendsLength)
        }

        static func status(_ code: Int, headers: [(String, String)] = []) -> Reply {
            Reply(status: code, headers: headers, body: Array("status \(code)\n".utf8))
        }
    }

    /// A request as the server saw it.
    struct Request: Sendable {
        var path: String
        var headers: [String: String]
    }

    private let state = NIOLockedValueBox<(scripts: [String: [Reply]], requests: [Request])>(([:], []))
    private let channel: any Channel
    let port: Int

    init() async throws {
        let state = self.state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.addHandler(Connection(state: state))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    func stop() async throws {
        try await channel.close()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Sets the replies `path` gives, in order; the last one repeats.
    func script(_ path: String, _ replies: Reply...) {
        state.withLockedValue { $0.scripts[path] = replies }
    }

    /// Every request so far, in order.
    var requests: [Request] { state.withLockedValue { $0.requests } }

    func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    /// Reads one request head, answers it from the script, and (after a Content-Length reply) waits for the next.
    private final class Connection: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let state: NIOLockedValueBox<(scripts: [String: [Reply]], requests: [Request])>
        var received: [UInt8] = []

        init(state: NIOLockedValueBox<(scripts: [String: [Reply]], requests: [Request])>) {
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readBytes(length: buffer.readableBytes) ?? []
            guard let end = received.indices.dropLast(3).first(where: { received[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else {
                return
            }
            let head = String(decoding: received[..<end], as: UTF8.self)
            received.removeSubrange(..<(end + 4))
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines.first?.split(separator: " ") ?? []
            let path = parts.count > 1 ? String(parts[1]) : "/"
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let reply = state.withLockedValue { state -> Reply in
                state.requests.append(Request(path: path, headers: headers))
                guard var script = state.scripts[path], !script.isEmpty else { return .status(404) }
                let reply = script.count > 1 ? script.removeFirst() : script[0]
                state.scripts[path] = script
                return reply
            }
            send(reply, notModified: reply.etag != nil && headers["if-none-match"] == reply.etag, context: context)
        }

        private func send(_ reply: Reply, notModified: Bool, context: ChannelHandlerContext) {
            let status = notModified ? 304 : reply.status
            let body = notModified ? [] : reply.body
            var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\n"
            for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
            if let etag = reply.etag { head += "ETag: \(etag)\r\n" }
            if reply.sendsLength || notModified {
                head += "Content-Length: \(body.count)\r\n"
            } else {
                head += "Connection: close\r\n"
            }
            head += "\r\n"
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head)), promise: nil)
            let limit = reply.cutAfter.map { min($0, body.count) } ?? body.count
            write(body[..<limit], reply: reply, context: context) {
                if reply.cutAfter != nil || !(reply.sendsLength || notModified) { context.close(promise: nil) }
            }
        }

        private func write(_ rest: ArraySlice<UInt8>, reply: Reply, context: ChannelHandlerContext, done: @escaping () -> Void) {
            guard !rest.isEmpty else { return done() }
            let piece = rest.prefix(reply.chunk)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: piece)), promise: nil)
            let remaining = rest.dropFirst(piece.count)
            if reply.pause == .zero {
                write(remaining, reply: reply, context: context, done: done)
            } else {
                context.eventLoop.assumeIsolated().scheduleTask(in: reply.pause) {
                    guard context.channel.isActive else { return }
                    self.write(remaining, reply: reply, context: context, done: done)
                }
            }
        }
    }
}
