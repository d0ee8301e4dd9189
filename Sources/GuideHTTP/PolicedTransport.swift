import AsyncHTTPClient
import Foundation
import GuideThreads
import Synchronization
import GuideCore
import NIOCore
import NIOHTTP1
import NIOSSL

/// ``HTTPTransport`` for addresses a viewer, a guest, a listings file or a playlist names: the host is resolved here,
/// each address checked against the ``OutboundPolicy``, and the connection made to the address that was checked (so a
/// name that answers differently the second time reaches nothing new), on every redirect hop (``RedirectHop``). http
/// and https only, no user or password in the address.
public final class PolicedTransport: HTTPTransport {
    public let policy: OutboundPolicy
    private let trusted: TrustedCertificates?
    private let connectTimeout: TimeAmount
    private let readTimeout: TimeAmount
    /// Name look-ups run at once, at most (each on a thread of its own: getaddrinfo blocks).
    private let lookups = Slots(8)


    /// `trusting`: certificates trusted besides the system's (a LAN's own authority, `outbound-ca`).
    public init(policy: OutboundPolicy, trusting trusted: TrustedCertificates? = nil, connectTimeout: TimeAmount = .seconds(10),
                readTimeout: TimeAmount = .seconds(20)) {
        self.policy = policy
        self.trusted = trusted
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
    }

    public func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, redirects: Redirects) async throws -> HTTPReply {
        var url = url
        var headers = headers
        for _ in 0...RedirectHop.most {
            let (client, reply) = try await sendOnce(method, url, headers: headers, body: body)
            guard redirects == .follow, let next = RedirectHop.next(from: url, method: method, reply: reply) else { return reply }
            try? await client.shutdown()  // This hop's answer is not read; its failure to close changes nothing.
            // Credentials are for the origin they were given to: a redirect elsewhere (SD's images to S3) goes without them.
            headers = RedirectHop.headers(headers, from: url, to: next).kept
            url = next
        }
        throw OutboundRefusal(url: url, reason: "more than \(RedirectHop.most) redirects")
    }

    /// Where a URL would be connected to, checked: the address to use. Throws ``OutboundRefusal``.
    public func check(_ url: URL) async throws -> [UInt8] {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw OutboundRefusal(url: url, reason: "only http and https are fetched")
        }
        guard url.user == nil, url.password == nil, let host = url.host?.lowercased(), !host.isEmpty else {
            throw OutboundRefusal(url: url, reason: "an address with a user, a password or no host")
        }
        return try await checked(host: host, port: url.port ?? (scheme == "https" ? 443 : 80), url: url)
    }

    /// The address to connect to for `host`:`port` by a protocol other than HTTP (Home Assistant's MQTT broker):
    /// resolved and checked as an HTTP request's is, written (`192.168.1.5`); the connection goes to it, never to the
    /// name. Throws ``OutboundRefusal``.
    public func checkedAddress(host: String, port: Int) async throws -> String {
        OutboundPolicy.written(try await checked(host: host.lowercased(), port: port, url: nil))
    }

    private func checked(host: String, port: Int, url: URL?) async throws -> [UInt8] {
        let addresses = try await resolve(host)
        guard let allowed = addresses.first(where: { policy.allows($0, host: host, port: port) }) else {
            let first = addresses.first.map { "\(OutboundPolicy.written($0)) (\(OutboundPolicy.classify($0)))" } ?? "no address"
            throw OutboundRefusal(url: url, reason: "\(host) is \(first)")
        }
        return allowed
    }

    /// Whether `url` may be offered as a one-click address (a playlist's guide): http(s), no user, and not refused by
    /// the policy (a name that does not resolve now is offered: the fetch will say).
    public func offers(_ url: URL) async -> Bool {
        do {
            _ = try await check(url)
            return true
        } catch is OutboundRefusal {
            return false
        } catch {
            return true
        }
    }

    /// One exchange with the checked address; the client is shut down when the body has been read or dropped.
    private func sendOnce(_ method: String, _ url: URL, headers: [(String, String)], body: Data?) async throws -> (HTTPClient, HTTPReply) {
        let address = try await check(url)
        let host = url.host?.lowercased() ?? ""
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: connectTimeout, read: readTimeout)
        configuration.decompression = .disabled
        configuration.dnsOverride = [host: OutboundPolicy.written(address)]
        if let trusted {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(trusted.certificates)]
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let closer = Closer(client)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.add(headers)
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(Int64(connectTimeout.nanoseconds / 1_000_000_000) + 20))
        } catch {
            await closer.close()
            throw OutboundFailure(url: url, reason: "\(error)")
        }
        var values: [String: String] = [:]
        for header in response.headers where values[header.name.lowercased()] == nil {
            values[header.name.lowercased()] = header.value
        }
        let iterator = BodyIterator(response.body.makeAsyncIterator(), closer: closer)
        return (client, HTTPReply(status: Int(response.status.code), headers: values) { try await iterator.next() })
    }

    /// The host's addresses: itself when it is one, else what the system's resolver says.
    private func resolve(_ host: String) async throws -> [[UInt8]] {
        if let literal = OutboundPolicy.bytes(of: host) { return [literal] }
        let found = try await lookups.run {
            try await BlockingWork.run("resolve") { () -> [[UInt8]] in Self.lookUp(host) }
        }
        guard !found.isEmpty else { throw OutboundFailure(url: nil, reason: "\(host) has no address") }
        return found
    }

    private static func lookUp(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(withUnsafeBytes(of: &v4) { Array($0) })
                case AF_INET6:
                    var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(withUnsafeBytes(of: &v6) { Array($0) })
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// Shuts a hop's client down once, when its body ends, fails, or its reply is dropped unread.
    private final class Closer: Sendable {
        private let client: HTTPClient
        private let closed = Mutex(false)
        init(_ client: HTTPClient) { self.client = client }
        func close() async {
            guard closed.withLock({ let was = $0; $0 = true; return !was }) else { return }
            try? await client.shutdown()  // Nothing more is read from it; a failure to close is not the caller's.
        }
        deinit {
            guard closed.withLock({ !$0 }) else { return }
            let client = self.client
            Task { try? await client.shutdown() }
        }
    }

    private final class BodyIterator: @unchecked Sendable {
        private var iterator: HTTPClientResponse.Body.AsyncIterator
        private let closer: Closer
        init(_ iterator: HTTPClientResponse.Body.AsyncIterator, closer: Closer) { (self.iterator, self.closer) = (iterator, closer) }
        func next() async throws -> ByteBuffer? {
            do {
                guard let part = try await iterator.next() else {
                    await closer.close()
                    return nil
                }
                return part
            } catch {
                await closer.close()
                throw error
            }
        }
    }
}

/// Certificates (PEM) trusted for outbound https besides the system's.
public struct TrustedCertificates: Sendable {
    let certificates: [NIOSSLCertificate]

    public init(pem: String) throws {
        certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        guard !certificates.isEmpty else { throw OutboundPolicyError("holds no PEM certificate") }
    }
}

/// The outbound policy refused an address: said to a viewer as "refused by this server's outbound rules"; `reason`
/// is for the admin's log.
public struct OutboundRefusal: Error, CustomStringConvertible, Sendable {
    public var url: String
    public var reason: String
    init(url: URL?, reason: String) {
        self.url = url.map(OutboundFailure.redacted) ?? ""
        self.reason = reason
    }
    public var description: String { "refused by this server's outbound rules (\(reason))" }
}

/// An allowed address could not be reached or answered badly: "could not be delivered" to a viewer.
public struct OutboundFailure: Error, CustomStringConvertible, Sendable {
    public var url: String
    public var reason: String
    init(url: URL?, reason: String) {
        self.url = url.map(Self.redacted) ?? ""
        self.reason = reason
    }
    public var description: String { "could not be reached (\(reason))" }

    /// Scheme, host and port only: a path or query can hold a secret (an ntfy topic, a push endpoint).
    static func redacted(_ url: URL) -> String {
        "\(url.scheme ?? "?")://\(url.host ?? "?")" + (url.port.map { ":\($0)" } ?? "")
    }
}
