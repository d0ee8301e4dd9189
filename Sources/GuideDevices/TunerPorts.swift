import Foundation
import GuideApplication
import GuideHTTPServing
import GuideStore
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Each feed an admin gave a tuner port, served there as an HDHomeRun tuner at the root (``HDHomeRunDevice``): Plex
/// takes a tuner as ADDRESS:PORT only, never a path. A small server of its own per port (the tuner's four answers and
/// nothing else, within the same connection limits as the guide), started and stopped as admins change the ports:
/// at once from the admin page, and every 30 s from the store (another instance's change on PostgreSQL).
public final class TunerPorts: TunerPortControl {
    public typealias State = TunerPortState

    private struct Listener: Sendable {
        var feed: Int64
        var task: Task<Void, Never>
        var state: State
    }

    let host: String
    let limits: ConnectionLimits
    let logger: Logger
    private let listeners = Mutex<[Int: Listener]>([:])
    /// The feeds to answer from; the router gives them (``attach(_:)``).
    private let feeds = Mutex<LineupFeeds?>(nil)
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Ports on `host` (serve's own), each connection within `limits`.
    public init(host: String, limits: ConnectionLimits = ConnectionLimits(), logger: Logger = Logger(label: "tvguide.tuners")) {
        (self.host, self.limits, self.logger) = (host, limits, logger)
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func attach(_ feeds: LineupFeeds) {
        self.feeds.withLock { $0 = feeds }
        wake.yield()
    }

    /// Feeds' ports changed: start and stop servers now.
    public func changed() {
        wake.yield()
    }

    /// The state of each feed's port, by feed id.
    public func states() -> [Int64: (port: Int, state: State)] {
        listeners.withLock { running in
            Dictionary(running.map { ($0.value.feed, (port: $0.key, state: $0.value.state)) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Keeps the servers matching the feeds' ports until cancelled (serve's graceful shutdown), then stops them all.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [wake] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(30))
                    wake.yield()
                }
            }
            // Ends when the task is cancelled.
            for await _ in wakes { await reconcile() }
            group.cancelAll()
        }
        listeners.withLock { running in
            for listener in running.values { listener.task.cancel() }
            running.removeAll()
        }
    }

    /// Starts a server for each port wanted and not served, stops each served and no longer wanted.
    func reconcile() async {
        guard let feeds = feeds.withLock({ $0 }) else { return }
        let wanted: [Int: LineupFeed]
        do {
            wanted = Dictionary(try await feeds.store.lineupFeeds().compactMap { feed in feed.tunerPort.map { ($0, feed) } },
                                uniquingKeysWith: { first, _ in first })
        } catch is CancellationError {
            return
        } catch {
            logger.error("tuner ports: the feeds could not be read: \(error)")
            return
        }
        listeners.withLock { running in
            for (port, listener) in running where wanted[port]?.id != listener.feed {
                listener.task.cancel()
                running[port] = nil
            }
            for (port, feed) in wanted where running[port] == nil {
                running[port] = Listener(feed: feed.id, task: start(port: port, feed: feed.id, feeds: feeds), state: .starting)
            }
        }
    }

    private func start(port: Int, feed: Int64, feeds: LineupFeeds) -> Task<Void, Never> {
        // The port's one route, open to anyone the port is open to, as the feed's secret address is: a tuner has no sign-in.
        let router = Router(context: DeviceRequestContext.self)
        router.get(":file") { request, context -> Response in
            // Read anew at each request: a removed feed's port answers nothing from the moment it is removed.
            guard let feed = try await feeds.store.lineupFeeds().first(where: { $0.id == feed && $0.tunerPort == port }) else {
                throw HTTPError(.notFound)
            }
            let base = feeds.settings.directAddress(for: request, local: context.local)
            guard let answer = try await HDHomeRunDevice(feed: feed, base: base).answer(context.parameters.get("file") ?? "", of: feed, from: feeds)
            else { throw HTTPError(.notFound) }
            return answer.response(for: request)
        }
        let application = Application(router: router, server: HTTPDoor.server(limits),
                                      configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "tvguide"),
                                      onServerRunning: { [weak self] _ in self?.mark(port: port, feed: feed, .listening) },
                                      logger: logger)
        return Task { [weak self] in
            do {
                try await application.runService()
            } catch {
                self?.logger.error("tuner port \(port): \(error)")
                self?.mark(port: port, feed: feed, .failed(Self.describe(error)))
            }
        }
    }

    private func mark(port: Int, feed: Int64, _ state: State) {
        listeners.withLock { running in
            if running[port]?.feed == feed { running[port]?.state = state }
        }
    }

    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        return text.contains("Address already in use") || text.contains("EADDRINUSE") ? "the port is in use by another program" : text
    }
}

/// A request to a tuner port: what the connection's own end is, for the device's address
/// (``ServerSettings/directAddress(for:local:)``). Nothing is ever posted to a tuner.
public struct DeviceRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let local: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        local = source.channel.localAddress
    }

    public var maxUploadSize: Int { 0 }
}
