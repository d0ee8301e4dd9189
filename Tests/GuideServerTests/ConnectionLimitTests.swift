import Foundation
import GuideHTTPServing
import GuideServer
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Connections an attacker opens: too many, too slow, headers too big. Each is cut off by a number, and the server
/// goes on answering others.
@Suite struct ConnectionLimitTests {
    /// A plain TCP connection to loopback, with blocking reads that give up after `timeout` seconds.
    final class RawConnection: @unchecked Sendable {
        let socket: Int32

        init(port: Int, timeout: Int = 10) throws {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var wait = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(socket) }

        /// Sends `text`; false when the server has closed the connection.
        @discardableResult
        func send(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } >= 0
        }

        /// What arrives until the server closes the connection or the read times out, and whether it closed.
        func readToEnd() -> (text: String, closed: Bool) {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count > 0 { bytes += buffer[0..<count]; continue }
                return (String(decoding: bytes, as: UTF8.self), count == 0 || errno == ECONNRESET)
            }
        }
    }

    static var limits: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.headTimeout = .seconds(2)
        limits.bodyTimeout = .seconds(2)
        limits.perAddress = 6
        return limits
    }

    @Test func aClientSendingItsHeadersSlowlyIsCutOff() async throws {
        try await WebTests.server().run(.live, limits: Self.limits) { client in
            let port = try #require(client.port)
            let outcome = try await offThePool {
                let connection = try RawConnection(port: port)
                connection.send("GET / HTTP/1.1\r\nHost: tvguide\r\n")
                let began = Date()
                // One header byte a second, as a slow-loris client does: the connection is closed within the head timeout
                // (2 s), where without it the client would keep it open for all 20.
                var open = true
                for _ in 0..<20 where open {
                    Thread.sleep(forTimeInterval: 1)
                    open = connection.send("X")
                }
                let closed = connection.readToEnd().closed
                let took = Date().timeIntervalSince(began)
                // Answered at all is what counts here (beside the other suites on 2 cores it once took over 5 s).
                let next = try RawConnection(port: port, timeout: 30)
                next.send("GET /api/coverage HTTP/1.1\r\nHost: tvguide\r\nConnection: close\r\n\r\n")
                return (closed, took, next.readToEnd().text)
            }
            #expect(outcome.0, "the slow connection was closed")
            // A send learns of the close a second or so after it (its first send only provokes the reset), and beside 89
            // suites on 2 cores the server's timer has fired 5 s late: 15 s still tells a guard from none (20).
            #expect(outcome.1 < 15, "closed after \(outcome.1) s")
            #expect(outcome.2.hasPrefix("HTTP/1.1 200"), "others are answered: \(outcome.2.prefix(60))")
        }
    }

    @Test func hugeHeadersAndTooManyConnectionsAreRefused() async throws {
        try await WebTests.server().run(.live, limits: Self.limits) { client in
            let port = try #require(client.port)
            let (huge, extra, afterwards) = try await offThePool {
                let big = try RawConnection(port: port)
                big.send("GET / HTTP/1.1\r\nHost: tvguide\r\nX-Big: " + String(repeating: "a", count: 40_000) + "\r\n\r\n")
                let huge = big.readToEnd()
                Thread.sleep(forTimeInterval: 0.3)
                // 6 per address in all (the test client may hold one): of 8 opened, 5 or 6 are answered, the others
                // closed at once, unanswered.
                // Generous timeouts: on 2 loaded cores an answer once took longer than 15 s; a refused one is closed at once.
                var held: [RawConnection]? = try (0..<8).map { _ in try RawConnection(port: port, timeout: 60) }
                // Every request sent before any answer is read: each head arrives well within the head timeout.
                for connection in held ?? [] { connection.send("GET /api/coverage HTTP/1.1\r\nHost: tvguide\r\nConnection: close\r\n\r\n") }
                let answers = (held ?? []).map { $0.readToEnd() }
                held = nil
                Thread.sleep(forTimeInterval: 0.3)
                // Which are refused depends on the order the event loops take them in; how many does not.
                let extra = (answered: answers.filter { $0.text.hasPrefix("HTTP/1.1 200") }.count,
                             refused: answers.filter { $0.closed && $0.text.isEmpty }.count)
                // Room again once the server has seen them close: on loaded cores that can come after the 0.3 s, so a
                // refused try is tried again, for 10 s at most.
                var afterwards = (text: "", closed: true)
                for _ in 0..<20 {
                    let again = try RawConnection(port: port, timeout: 30)
                    again.send("GET /api/coverage HTTP/1.1\r\nHost: tvguide\r\nConnection: close\r\n\r\n")
                    afterwards = again.readToEnd()
                    if !afterwards.text.isEmpty { break }
                    Thread.sleep(forTimeInterval: 0.5)
                }
                return (huge, extra, afterwards)
            }
            #expect(huge.closed && !huge.text.hasPrefix("HTTP/1.1 200"), "\(huge.text.prefix(80))")
            #expect((4...6).contains(extra.answered) && extra.answered + extra.refused == 8, "\(extra)")
            #expect(afterwards.text.hasPrefix("HTTP/1.1 200"), "connections closed, room again: \(afterwards.text.prefix(80))")
        }
    }
}
