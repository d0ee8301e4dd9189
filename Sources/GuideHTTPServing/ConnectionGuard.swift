import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The bounds every connection lives within, whoever opens it.
public struct ConnectionLimits: Sendable {
    /// Connections open at once, in all.
    public var total = 512
    /// Connections open at once from one address.
    public var perAddress = 64
    /// From opening the connection to a request's head having arrived: a client sending its headers a byte at a
    /// time, or opening connections and saying nothing, is cut off.
    public var headTimeout: TimeAmount = .seconds(15)
    /// From a request's head to its body's end.
    public var bodyTimeout: TimeAmount = .seconds(30)
    /// A request line's and headers' sizes (Hummingbird's decoder refuses more).
    public var largestHeaderField = 16 * 1024
    public var largestHeaders = 32 * 1024
    public var mostHeaderFields = 100
    /// After a response, the next request's head must have arrived within this (a keep-alive connection's wait);
    /// with no bytes either way for this long, Hummingbird closes an idle connection too.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// A request answered before its body has all arrived (refused from its head, or past its limit) is not read on:
    /// its answer says `Connection: close`, the connection stops sending, and what the client still sends is
    /// discarded for at most this long (so it can read the answer) before the connection is closed.
    public var refusedBodyLinger: TimeAmount = .seconds(2)

    public init() {}
}

/// Counts connections per address and in all, cuts off those that send too slowly, and closes a connection whose
/// request was answered before its body arrived (Hummingbird would otherwise read the rest of it, however large).
/// One per connection, placed by Hummingbird between its HTTP decoder and the application.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Open connections, shared by every guard of one server: the limits, and the slots they allow.
    struct Census: Sendable {
        let limits: ConnectionLimits
        let slots: OpenSlots

        init(limits: ConnectionLimits) {
            self.limits = limits
            slots = OpenSlots(total: limits.total, perClient: limits.perAddress)
        }
    }

    private let census: Census
    private var address = ""
    private var isCounted = false
    private var deadline: Scheduled<Void>?
    /// Requests whose end has arrived, less responses ended: 0 when a response is written means its request's body is
    /// still arriving (pipelined requests make it more).
    private var requestsAhead = 0
    private var isClosing = false

    init(census: Census) {
        self.census = census
    }

    func handlerAdded(context: ChannelHandlerContext) {
        address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard census.slots.take(address) else {
            context.close(promise: nil)
            return
        }
        isCounted = true
        arm(context, census.limits.headTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        if isCounted { census.slots.give(back: address) }
        isCounted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: if !isClosing { arm(context, census.limits.bodyTimeout) }
        case .body: break
        case .end:
            requestsAhead += 1
            // The application has the whole request; the response takes the time it takes (live progress streams).
            if !isClosing {
                deadline?.cancel()
                deadline = nil
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where requestsAhead == 0 && head.status.code >= 200:
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where requestsAhead == 0:
            // Answered before its body arrived: stop sending, discard what still comes for a moment, then close.
            isClosing = true
            let channel = context.channel
            let written = promise ?? context.eventLoop.makePromise()
            context.writeAndFlush(data, promise: written)
            written.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
            arm(context, census.limits.refusedBodyLinger)
        case .end:
            requestsAhead -= 1
            arm(context, census.limits.idleTimeout)
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
