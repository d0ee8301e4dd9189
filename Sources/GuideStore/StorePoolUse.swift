import GuideCore
import Metrics

/// How much of a store's pool of connections is in use, for `/metrics`: the connections lent now and the pool's size
/// (`tvguide_store_connections_in_use`, `tvguide_store_connections_limit`), and how long each borrower waited for one
/// (`tvguide_store_connection_wait_seconds`), labelled by store. Both stores record it around every connection they
/// lend; with no metrics system started it records nothing.
public struct StorePoolUse: Sendable {
    private let inUse: Meter
    private let waits: Timer

    /// Made after the metrics system is started (serve starts it before opening the store); `metrics` is for the
    /// benchmark, which weighs what recording costs.
    public init(store: String, limit: Int, metrics: any MetricsFactory = MetricsSystem.factory) {
        let dimensions = [("store", store)]
        inUse = Meter(label: "tvguide_store_connections_in_use", dimensions: dimensions, factory: metrics)
        waits = Timer(label: "tvguide_store_connection_wait_seconds", dimensions: dimensions, factory: metrics)
        Gauge(label: "tvguide_store_connections_limit", dimensions: dimensions, factory: metrics).record(limit)
    }

    /// A connection asked for at `asked` is lent now: the wait recorded, and the connection counted until
    /// ``returned()``.
    public func borrowed(askedAt asked: ContinuousClock.Instant) {
        waits.recordNanoseconds(Self.nanoseconds(asked.duration(to: .now)))
        inUse.increment()
    }

    public func returned() {
        inUse.decrement()
    }

    /// Runs `body` on a connection asked for at `asked`, counted as lent while it runs.
    public func lent<T>(askedAt asked: ContinuousClock.Instant, _ body: () throws -> T) rethrows -> T {
        borrowed(askedAt: asked)
        defer { returned() }
        return try body()
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        Bounded.sum(Bounded.product(duration.components.seconds, 1_000_000_000), duration.components.attoseconds / 1_000_000_000)
    }
}
