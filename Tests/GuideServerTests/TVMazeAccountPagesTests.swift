import Foundation
import GuideCore
import GuideStore
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing
import TVMazeReplay

/// A profile's TVmaze account on its history page and in the API (issue 29), against the replay server's account
/// stand-in: a wrong key said so, connecting starts a sync in the background, the page says how it went; the API's
/// status, connect, sync and forget; who may.
@Suite struct TVMazeAccountPagesTests {
    @Test func connectFromTheHistoryPageSyncAndForget() async throws {
        try await SeriesPagesTests().withServer { server, replay, client in
            server.advance(by: WatchedPagesTests.aYearOn)
            replay.account.configure(username: "sam", apiKey: "k3y", premium: 1)
            replay.account.marks = [2: .init(markedAt: 1_372_800_000, type: 0)]
            let admin = try await AccountTests.admin(client)
            #expect(String(buffer: try await admin.send(client, "/history").body).contains(#"id="tvmaze-connect""#))
            // The form token is needed; a wrong key is said so and nothing is kept.
            #expect(try await admin.send(client, "/history/tvmaze", method: .post, form: ["username": "sam", "key": "k3y"], withToken: false).status == .forbidden)
            let wrong = try await admin.send(client, "/history/tvmaze", method: .post, form: ["username": "sam", "key": "nope"])
            #expect(wrong.status == .badRequest && String(buffer: wrong.body).contains("refused the username and API key"))
            #expect(try await admin.send(client, "/history/tvmaze", method: .post, form: ["username": "", "key": "k3y"]).status == .badRequest)
            let connected = try await admin.send(client, "/history/tvmaze", method: .post, form: ["username": "sam", "key": "k3y"])
            #expect(connected.status == .seeOther && connected.headers[.location] == "/history#tvmaze")
            // The sync runs in the background; the page says how it went.
            var page = ""
            for _ in 0..<100 {
                page = String(buffer: try await admin.send(client, "/history").body)
                if page.contains("Last synced") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(page.contains("TVmaze account <strong>sam</strong> (Premium)") && page.contains("1 marked here"), "\(page)")
            let profile = try #require(try await server.store.profiles().first).id
            #expect(try await server.store.watched(by: profile, show: nil).map(\.episodeID) == [2])

            // The API: a session reads it; changes take a token with scope admin.
            let token = try await CredentialTests.token("admin", by: admin, client)
            let read = try await CredentialTests.token("read", by: admin, client)
            func call(_ method: HTTPRequest.Method, _ path: String, _ token: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, String) {
                let response = try await client.execute(uri: path, method: method,
                                                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                        body: body.map { ByteBuffer(string: $0) })
                return (response.status, String(buffer: response.body))
            }
            let status = try await call(.get, "/api/tvmaze", read)
            #expect(status.0 == .ok && status.1.contains(#""connected":true"#) && status.1.contains(#""username":"sam""#), "\(status)")
            #expect(try await call(.post, "/api/tvmaze/sync", read).0 == .forbidden)
            #expect(try await call(.post, "/api/tvmaze/sync", token).0 == .ok)
            for bad in [#"{"username":"sam"}"#, #"{"username":"","key":"k"}"#, "[]", #"{"username":"sam","key":"nope"}"#] {
                #expect(try await call(.put, "/api/tvmaze", token, bad).0 == .badRequest, "\(bad)")
            }
            #expect(try await call(.delete, "/api/tvmaze", token) == (.ok, #"{"connected":false}"#))
            #expect(try await call(.post, "/api/tvmaze/sync", token).0 == .notFound)
            let again = try await call(.put, "/api/tvmaze", token, #"{"username":"sam","key":"k3y"}"#)
            #expect(again.0 == .ok && again.1.contains(#""premium":true"#))
            // Forgotten from the page: the marks stay.
            #expect(try await admin.send(client, "/history/tvmaze/disconnect", method: .post, form: [:]).status == .seeOther)
            #expect(try await server.store.tvmazeAccount(of: profile) == nil)
            #expect(try await server.store.watched(by: profile, show: nil).count == 1)
            #expect(try await CookieJar().send(client, "/history/tvmaze/sync", method: .post, form: [:]).status == .seeOther)
        }
    }

    /// `POST /api/history/import`: the export as the body, previewed (nothing kept), imported, imported again (nothing
    /// changes); a show named by hand; hostile names, ids and sizes refused.
    @Test func importingAnExportThroughTheAPI() async throws {
        try await SeriesPagesTests().withServer { server, _, client in
            server.advance(by: WatchedPagesTests.aYearOn)
            let admin = try await AccountTests.admin(client)
            let token = try await CredentialTests.token("admin", by: admin, client)
            let read = try await CredentialTests.token("read", by: admin, client)
            let csv = "show,tvdb,season,episode,watched_at\r\nUnder the Dome,264492,1,1,2013-06-25 03:00:00\r\nNobody Knows This,,1,2,\r\n"
            func post(_ query: String, _ body: [UInt8] = Array(csv.utf8), token: String? = nil) async throws -> (HTTPResponse.Status, String) {
                let response = try await client.execute(uri: "/api/history/import" + query, method: .post,
                                                        headers: [.authorization: "Bearer \(token ?? "")", .contentType: "application/octet-stream"],
                                                        body: ByteBuffer(bytes: body))
                return (response.status, String(buffer: response.body))
            }
            #expect(try await post("?preview=true", token: read).0 == .forbidden)
            let preview = try await post("?preview=true", token: token)
            #expect(preview.0 == .ok && preview.1.contains(#""how":"TVDB 264492""#) && preview.1.contains(#""notFound":[{"episodes":1,"title":"Nobody Knows This"}]"#),
                    "\(preview)")
            let profile = try #require(try await server.store.profiles().first).id
            #expect(try await server.store.watched(by: profile, show: nil).isEmpty)
            let done = try await post("?choose=Nobody%20Knows%20This%3D1&follow=false", token: token)
            #expect(done.0 == .ok && done.1.contains(#""marked":2"#) && done.1.contains(#""followed":0"#), "\(done)")
            #expect(try await post("?choose=Nobody%20Knows%20This%3D1", token: token).1.contains(#""marked":0"#))
            #expect(try await server.store.watched(by: profile, show: 1).map(\.number) == [1, 2])
            for query in ["?choose=X%3D9223372036854775807", "?choose=X%3D-1", "?choose=nothing", "?name=" + String(repeating: "a", count: 300)] {
                #expect(try await post(query, token: token).0 == .badRequest, "\(query)")
            }
            #expect(try await post("?name=notes.txt", Array("hello".utf8), token: token).0 == .badRequest)
            #expect(try await post("", [UInt8](repeating: 0x41, count: (50 << 20) + 1), token: token).0 == .contentTooLarge)
        }
    }
}
