import Hummingbird
import HummingbirdCore

/// What every HTTP door shares (the web's pages and API, a feed's tuner port): how its server is built.
public enum HTTPDoor {
    /// HTTP/1.1 with the connection limits: header sizes, idle and slow-client timeouts, counts per address and in all.
    public static func server(_ limits: ConnectionLimits) -> HTTPServerBuilder {
        let census = ConnectionGuard.Census(limits: limits)
        return .http1(configuration: HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(census: census)], idleTimeout: limits.idleTimeout,
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.largestHeaderField, maxHeaderListSize: limits.largestHeaders,
                                            maxHeaderFieldCount: limits.mostHeaderFields)))
    }
}
