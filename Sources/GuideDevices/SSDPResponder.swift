import Foundation
import GuideApplication
import GuideThreads
import GuideCore
import GuideHTTP
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Answers SSDP searches on the local network for the feeds' tuner ports (``TunerPorts``), as HDHomeRun devices
/// answer them: an `M-SEARCH` to 239.255.255.250:1900 for `ssdp:all`, `upnp:rootdevice`, a MediaServer device or a
/// tuner's own `uuid:` gets, for each listening tuner, a `200 OK` whose `LOCATION` is its `device.xml` at the address of
/// this machine on the way back to the searcher. Off unless the admin turns it on (`serve --ssdp`).
///
/// SSDP is a known amplifier (a small search, several answers, to a forged source), so only searchers on loopback and
/// private or link-local networks are answered, and at most ``searchesPerSecond`` searches a second in all. And only
/// on the address serve listens on (`--host`, the tuner ports' too): a search is answered when the way back to the
/// searcher leaves from it, so a server listening on 127.0.0.1 answers this machine only, one on 192.168.1.5 that
/// network only; listening on every address (0.0.0.0, ::), every network it is on.
public final class SSDPResponder: Sendable {
    static let group = "239.255.255.250"
    static let searchesPerSecond = 20
    /// The search targets a tuner answers, besides its own `uuid:`.
    static let targets: Set<String> = ["ssdp:all", "upnp:rootdevice", "urn:schemas-upnp-org:device:MediaServer:1"]

    let port: Int
    let tuners: TunerPorts
    let logger: Logger
    let now: @Sendable () -> Date
    private let budget = Mutex<(second: Int64, used: Int)>((0, 0))
    /// The addresses searches are answered from (``addresses(listeningOn:)``), found when it starts; none before.
    private let listening = Mutex<Set<[UInt8]>?>([])

    /// Listening on UDP `port` (1900 on a network; tests take another).
    public init(port: Int, tuners: TunerPorts, now: @escaping @Sendable () -> Date, logger: Logger = Logger(label: "tvguide.ssdp")) {
        (self.port, self.tuners, self.now, self.logger) = (port, tuners, now, logger)
    }

    /// Answers until cancelled.
    public func run() async {
        let host = tuners.host
        // A name is looked up once, on a thread of its own (getaddrinfo blocks); failing that, nothing is answered.
        let addresses = try? await BlockingWork.run("ssdp-host") { Self.addresses(listeningOn: host) }
        listening.withLock { $0 = addresses ?? [] }
        do {
            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Handler(responder: self)) }
                }
                .bind(host: "0.0.0.0", port: port).get()
            if let multicast = channel as? MulticastChannel {
                do {
                    try await multicast.joinGroup(try SocketAddress(ipAddress: Self.group, port: port)).get()
                } catch {
                    logger.warning("SSDP: could not join \(Self.group) (\(error)); answering searches sent to this machine only")
                }
            }
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch {
            logger.error("SSDP: could not listen on UDP port \(port): \(error)")
        }
    }

    /// The answers to one datagram from `searcher`: none unless it is a search this responder answers, from a searcher
    /// reached from the address serve listens on.
    func answers(to datagram: String, from searcher: SocketAddress) -> [String] {
        guard let ip = searcher.ipAddress, Self.isNearby(ip), let target = Self.searchTarget(datagram),
              let here = Self.localAddress(towards: searcher), Self.answers(listeningOn: listening.withLock({ $0 }), from: here),
              takeBudget() else { return [] }
        let host = here.contains(":") ? "[\(here)]" : here
        return tuners.states().compactMap { feed, tuner -> String? in
            guard tuner.state == .listening else { return nil }
            let udn = HDHomeRunDevice.udn(feed: feed)
            guard Self.targets.contains(target) || target == udn else { return nil }
            let type = target == "ssdp:all" ? "urn:schemas-upnp-org:device:MediaServer:1" : target
            return [
                "HTTP/1.1 200 OK",
                "CACHE-CONTROL: max-age=1800",
                "EXT:",
                "LOCATION: http://\(host):\(tuner.port)/device.xml",
                "SERVER: Linux UPnP/1.0 tvguide/1",
                "ST: \(type)",
                "USN: " + (type == udn ? udn : "\(udn)::\(type)"),
                "", "",
            ].joined(separator: "\r\n")
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

    /// Whether `ip` is on loopback, a private network or link-local: where SSDP searches come from. Not carrier-grade
    /// NAT (100.64.0.0/10): private to the carrier, shared with its other customers, not the viewer's network.
    static func isNearby(_ ip: String) -> Bool {
        guard let bytes = OutboundPolicy.bytes(of: ip) else { return false }
        switch OutboundPolicy.classify(bytes) {
        case .private: return !(bytes.count == 4 && bytes[0] == 100 && bytes[1] & 0xC0 == 64)
        case .loopback: return true
        case .public: return false
        case .special: return bytes.count == 4 ? bytes[0] == 169 && bytes[1] == 254 : bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        }
    }

    /// The `ST` of an `M-SEARCH` with `MAN: "ssdp:discover"`, else nil.
    static func searchTarget(_ datagram: String) -> String? {
        let lines = datagram.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
        guard lines.first?.uppercased().hasPrefix("M-SEARCH * HTTP/1.1") == true else { return nil }
        var fields: [String: String] = [:]
        for line in lines.dropFirst().prefix(30) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].trimmingCharacters(in: .whitespaces).uppercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["MAN"]?.replacingOccurrences(of: "\"", with: "").lowercased() == "ssdp:discover", let target = fields["ST"],
              !target.isEmpty, target.utf8.count <= 200 else { return nil }
        return target
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
        let responder: SSDPResponder

        init(responder: SSDPResponder) {
            self.responder = responder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = Self.unwrapInboundIn(data)
            guard envelope.data.readableBytes <= 2048 else { return }
            let text = String(buffer: envelope.data)
            for answer in responder.answers(to: text, from: envelope.remoteAddress) {
                let reply = AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: context.channel.allocator.buffer(string: answer))
                context.write(Self.wrapOutboundOut(reply), promise: nil)
            }
            context.flush()
        }
    }
}
