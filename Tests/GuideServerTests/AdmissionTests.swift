import Foundation
import GuideServer
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import Testing

/// A request is admitted from its head before a byte of its body is read (issue 43, point 1): the route's group
/// decides who may call it, a guest gets the smallest size, and bodies in flight have one bound for the server. A
/// refused request is answered at once, its body unread, and its connection closed.
///
/// Each request here sends its head and none of its body. Before, the server waited for the body (and read all
/// 50 MB of a guest's upload before refusing it): none of these was answered within the 10 s a connection waits.
@Suite struct AdmissionTests {
    /// What answers `head` (a request's head, its body never sent) within 10 s, and whether the connection was closed.
    static func answer(_ port: Int, _ head: String) async throws -> (text: String, closed: Bool) {
        try await offThePool {
            let connection = try ConnectionLimitTests.RawConnection(port: port, timeout: 10)
            connection.send(head)
            return connection.readToEnd()
        }
    }

    /// A POST's head; `close` asks the server to close the connection after its answer.
    static func post(_ path: String, length: Int, cookies: String = "", type: String = "application/x-www-form-urlencoded", close: Bool = false) -> String {
        "POST \(path) HTTP/1.1\r\nHost: tvguide\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n"
            + (cookies.isEmpty ? "" : "Cookie: \(cookies)\r\n") + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    static let fiftyMB = 50 << 20
    static let upload = "multipart/form-data; boundary=x"

    @Test func refusedCallersAreAnsweredFromTheirHead() async throws {
        let server = try await AccountTests.server()
        try await server.run(.live) { client in
            let port = try #require(client.port)
            let admin = try await AccountTests.admin(client)
            let session = "tvguide_session=" + (try #require(admin["tvguide_session"]))
            let guest = CookieJar()
            try await guest.send(client, "/")
            let nonce = "tvguide_csrf=" + (try #require(guest["tvguide_csrf"]))

            // A guest's 50 MB upload to a profile's route: sent to sign in.
            let upload = try await Self.answer(port, Self.post("/history/import", length: Self.fiftyMB, type: Self.upload))
            #expect(upload.text.hasPrefix("HTTP/1.1 303") && upload.text.lowercased().contains("location: /signin?next=%2fhistory%2fimport"), "\(upload.text.prefix(200))")
            // The same from a guest who has a form token's cookie: still a profile's route.
            let withNonce = try await Self.answer(port, Self.post("/history/import", length: Self.fiftyMB, cookies: nonce, type: Self.upload))
            #expect(withNonce.text.hasPrefix("HTTP/1.1 303"), "\(withNonce.text.prefix(120))")
            // An admin's page from a guest: sent to sign in; a form to an open route from a guest never given a token: 403.
            let adminPage = try await Self.answer(port, Self.post("/admin/profiles", length: 1_000))
            #expect(adminPage.text.hasPrefix("HTTP/1.1 303"), "\(adminPage.text.prefix(120))")
            let noToken = try await Self.answer(port, Self.post("/signin", length: 1_000))
            #expect(noToken.text.hasPrefix("HTTP/1.1 403"), "\(noToken.text.prefix(120))")
            // A guest with a token's cookie may post 16 KiB to an open route; the sign-in form is far smaller.
            let guestLarge = try await Self.answer(port, Self.post("/signin", length: (16 << 10) + 1, cookies: nonce))
            #expect(guestLarge.text.hasPrefix("HTTP/1.1 413"), "\(guestLarge.text.prefix(120))")
            // A signed-in profile: a form route takes 64 KiB, the upload 50 MiB.
            let form = try await Self.answer(port, Self.post("/admin/profiles", length: (64 << 10) + 1, cookies: session))
            #expect(form.text.hasPrefix("HTTP/1.1 413"), "\(form.text.prefix(120))")
            let file = try await Self.answer(port, Self.post("/history/import", length: Self.fiftyMB + 1, cookies: session, type: Self.upload))
            #expect(file.text.hasPrefix("HTTP/1.1 413"), "\(file.text.prefix(120))")
            // A path no route has: 404, its body unread.
            let nowhere = try await Self.answer(port, Self.post("/nowhere", length: Self.fiftyMB))
            #expect(nowhere.text.hasPrefix("HTTP/1.1 404"), "\(nowhere.text.prefix(120))")

            // Each refused from its head says so and closes the connection, the rest of its body unread.
            for refused in [upload, withNonce, adminPage, noToken, guestLarge, form, file, nowhere] {
                #expect(refused.closed && refused.text.lowercased().contains("connection: close"), "\(refused.text.prefix(200))")
            }
            // A body sent in chunks, with no length to refuse it by, is refused at the first byte past the limit.
            let chunked = try await offThePool {
                let connection = try ConnectionLimitTests.RawConnection(port: port, timeout: 10)
                connection.send("POST /signin HTTP/1.1\r\nHost: tvguide\r\nCookie: \(nonce)\r\nTransfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<3 { connection.send(String(8 << 10, radix: 16) + "\r\n" + String(repeating: "a", count: 8 << 10) + "\r\n") }
                return connection.readToEnd()
            }
            #expect(chunked.text.hasPrefix("HTTP/1.1 413") && chunked.closed, "\(chunked.text.prefix(120))")
            // A length that is no length is refused from the head too, and never traps (HostileRequestTests' numbers).
            for length in HostileRequestTests.hugeNumbers {
                let hostile = try await Self.answer(port, "POST /signin HTTP/1.1\r\nHost: tvguide\r\nCookie: \(nonce)\r\nContent-Length: \(length)\r\n\r\n")
                #expect(hostile.text.hasPrefix("HTTP/1.1 4") && hostile.closed, "\(length): \(hostile.text.prefix(80))")
            }
            // The server answers on.
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
        }
    }

    /// Bodies in flight share one bound: one upload holding most of it leaves no room for a second, which is told to
    /// come back (503, `Retry-After`) before a byte of it is read; the room comes back when the first ends.
    @Test func bodiesInFlightShareOneBound() async throws {
        let server = try await AccountTests.server()
        try await server.run(.live, change: { $0.settings.bodiesInFlight = 256 << 10 }) { client in
            let port = try #require(client.port)
            let admin = try await AccountTests.admin(client)
            let session = "tvguide_session=" + (try #require(admin["tvguide_session"]))
            let (second, third) = try await offThePool {
                let first = try ConnectionLimitTests.RawConnection(port: port, timeout: 10)
                first.send(Self.post("/history/import", length: 200 << 10, cookies: session, type: Self.upload, close: true))
                first.send(String(repeating: "a", count: 100 << 10))
                Thread.sleep(forTimeInterval: 0.5)
                let second = try ConnectionLimitTests.RawConnection(port: port, timeout: 10)
                second.send(Self.post("/history/import", length: 100 << 10, cookies: session, type: Self.upload))
                let refused = second.readToEnd()
                first.send(String(repeating: "a", count: 100 << 10))
                _ = first.readToEnd()
                let third = try ConnectionLimitTests.RawConnection(port: port, timeout: 10)
                third.send(Self.post("/history/import", length: 100 << 10, cookies: session, type: Self.upload, close: true) + String(repeating: "a", count: 100 << 10))
                return (refused, third.readToEnd())
            }
            #expect(second.text.hasPrefix("HTTP/1.1 503") && second.text.lowercased().contains("retry-after: 30"), "\(second.text.prefix(200))")
            #expect(!third.text.isEmpty && !third.text.hasPrefix("HTTP/1.1 503"), "room again: \(third.text.prefix(120))")
            // Forms are taken as before.
            let kid = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            #expect(kid.status == .ok)
        }
    }
}
