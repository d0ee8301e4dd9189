import Foundation
import GuideHTTP
import GuideThreads
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// What both ways of finding the feeds' tuners on the network share (``SSDPResponder``, ``HDHomeRunDiscovery``):
/// which searchers are answered, from which address, how often, and the UDP socket they listen on.
///
/// A discovery answer is a known amplifier (a small request, several answers, to a forged source), so only searchers on
/// loopback and private or link-local networks are answered, and at most ``searchesPerSecond`` searches a second in all.
/// And only on the address serve listens on (`--host`, the tuner ports' too): a search is answered when the way back to
/// the searcher leaves from it, so a server listening on 127.0.0.1 answers this machine only, one on 192.168.1.5 that
/// network only; listening on every address (0.0.0.0, ::), every network it is on.
public final class DiscoveryGate: Sendable {
    static let searchesPerSecond = 20
    /// The largest datagram read: an SSDP search or an HDHomeRun discovery request is far smaller.
    static let largestDatagram = 2048

    let host: String
    let now: @Sendable () -> Date
    let logger: Logger
    private let budget = Mutex<(second: Int64, used: Int)>((0, 0))
    /// The addresses searches are answered from (``addresses(listeningOn:)``), found when it starts; none before.
    private let listening = Mutex<Set<[UInt8]>?>([])

    /// For a server listening on `host` (serve's `--host`).
    public init(host: String, now: @escaping @Sendable () -> Date, logger: Logger = Logger(label: "tvguide.discovery")) {
        (self.host, self.now, self.logger) = (host, now, logger)
    }

    /// Looks the host's addresses up, once, on a thread of its own (getaddrinfo blocks); failing that, nothing is answered.
    func start() async {
        let addresses = try? await BlockingWork.run("discovery-host") { [host] in Self.addresses(listeningOn: host) }
        listening.withLock { $0 = addresses ?? [] }
    }

    /// This machine's address to answer `searcher` from: nil unless the searcher is nearby, reached from the address
    /// serve listens on, and the second's budget has room.
    func answeringAddress(for searcher: SocketAddress) -> String? {
        guard let ip = searcher.ipAddress, Self.isNearby(ip), let here = Self.localAddress(towards: searcher),
              Self.answers(listeningOn: listening.withLock({ $0 }), from: here), takeBudget() else { return nil }
        return here
    }

    /// `address` as a URL's host: an IPv6 address in brackets.
    static func urlHost(_ address: String) -> String { address.contains(":") ? "[\(address)]" : address }

    /// Listens on UDP `port` (and joins `group`, when given) until cancelled, answering each datagram with `answer`'s.
    func listen(port: Int, joining group: String? = nil, name: String,
                answer: @escaping @Sendable (ByteBuffer, SocketAddress) -> [ByteBuffer]) async {
        await start()
        do {
            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Handler(answer: answer)) }
                }
                .bind(host: "0.0.0.0", port: port).get()
            if let group, let multicast = channel as? MulticastChannel {
                do {
                    try await multicast.joinGroup(try SocketAddress(ipAddress: group, port: port)).get()
                } catch {
                    logger.warning("\(name): could not join \(group) (\(error)); answering searches sent to this machine only")
                }
            }
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch {
            logger.error("\(name): could not listen on UDP port \(port): \(error)")
        }
    }

    /// The addresses a server listening on `host` (serve's `--host`) answers from: nil for every address (0.0.0.0,
    /// ::); an address itself; a name's addresses, looked up once (at the responder's start).
    static func addresses(listeningOn host: String) -> Set<[UInt8]>? {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if ["", "0.0.0.0", "::", "*"].contains(host) { return nil }
        if let address = OutboundPolicy.bytes(of: host) { return [address] }
        var found: UnsafeMutablePointer<addrinfo>?
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        guard getaddrinfo(host, nil, &hints, &found) == 0 else { return [] }
        defer { freeaddrinfo(found) }
        var addresses = Set<[UInt8]>()
        var entry = found
        while let info = entry?.pointee {
            if let address = info.ai_addr {
                if info.ai_family == AF_INET {
                    var ip = UnsafeRawPointer(address).load(as: sockaddr_in.self).sin_addr
                    addresses.insert(withUnsafeBytes(of: &ip) { Array($0) })
                } else if info.ai_family == AF_INET6 {
                    var ip = UnsafeRawPointer(address).load(as: sockaddr_in6.self).sin6_addr
                    addresses.insert(withUnsafeBytes(of: &ip) { Array($0) })
                }
            }
            entry = info.ai_next
        }
        return addresses
    }

    /// Whether a search is answered when the way back to its searcher leaves from this machine's address `here`.
    static func answers(listeningOn addresses: Set<[UInt8]>?, from here: String) -> Bool {
        guard let addresses else { return true }
        return OutboundPolicy.bytes(of: here).map(addresses.contains) ?? false
    }

    /// Whether `ip` is on loopback, a private network or link-local: where discovery searches come from. Not
    /// carrier-grade NAT (100.64.0.0/10): private to the carrier, shared with its other customers, not the viewer's network.
    static func isNearby(_ ip: String) -> Bool {
        guard let bytes = OutboundPolicy.bytes(of: ip) else { return false }
        switch OutboundPolicy.classify(bytes) {
        case .private: return !(bytes.count == 4 && bytes[0] == 100 && bytes[1] & 0xC0 == 64)
        case .loopback: return true
        case .public: return false
        case .special: return bytes.count == 4 ? bytes[0] == 169 && bytes[1] == 254 : bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        }
    }

    private func takeBudget() -> Bool {
        let second = Int64(now().timeIntervalSince1970)
        return budget.withLock { budget in
            if budget.second != second { budget = (second, 0) }
            guard budget.used < Self.searchesPerSecond else { return false }
            budget.used += 1
            return true
        }
    }

    /// This machine's address on the route to `peer`: a UDP socket connected to it (which sends nothing) says which.
    static func localAddress(towards peer: SocketAddress) -> String? {
        guard let ip = peer.ipAddress, let port = peer.port else { return nil }
        let family = ip.contains(":") ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let target = try? SocketAddress(ipAddress: ip, port: port) else { return nil }
        let connected = target.withSockAddr { address, length in connect(descriptor, address, socklen_t(length)) }
        guard connected == 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        let bytes: [UInt8] = withUnsafeBytes(of: &storage) { raw in
            if family == AF_INET {
                var address = raw.load(as: sockaddr_in.self).sin_addr
                return withUnsafeBytes(of: &address) { Array($0) }
            }
            var address = raw.load(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        return OutboundPolicy.written(bytes)
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let answer: @Sendable (ByteBuffer, SocketAddress) -> [ByteBuffer]

        init(answer: @escaping @Sendable (ByteBuffer, SocketAddress) -> [ByteBuffer]) {
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = Self.unwrapInboundIn(data)
            guard envelope.data.readableBytes <= DiscoveryGate.largestDatagram else { return }
            for reply in answer(envelope.data, envelope.remoteAddress) {
                context.write(Self.wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: reply)), promise: nil)
            }
            context.flush()
        }
    }
}
