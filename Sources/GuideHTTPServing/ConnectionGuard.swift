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

    public init() {}
}

/// Counts connections per address and in all, and cuts off those that send too slowly. One per connection, placed
/// by Hummingbird between its HTTP decoder and the application.
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
        case .head: arm(context, census.limits.bodyTimeout)
        case .body: break
        case .end:
            // The application has the whole request; the response takes the time it takes (live progress streams).
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, census.limits.idleTimeout) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
