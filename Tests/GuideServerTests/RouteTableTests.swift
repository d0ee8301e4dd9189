import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TVMazeReplay
@testable import GuideServer

/// HTTP as clients expect it, from the one route table (issue 27, point 9): every GET route answers HEAD with the
/// GET's status and headers and no body, and a known path asked with a method it does not take answers 405 naming
/// those it does.
@Suite struct RouteTableTests {
    /// A path of the table with its parameters filled in.
    static func concrete(_ path: String) -> String {
        "/" + path.split(separator: "/").map { part in
            part == ":file" ? "guide.css" : part.hasPrefix(":") ? "1" : String(part)
        }.joined(separator: "/")
    }

    @Test func everyGETRouteAnswersHEADAndEveryPathAnswers405ForOtherMethods() async throws {
        // TVmaze's pages answered by the replay server (recorded answers), not left to time out.
        let replay = try await ReplayServer()
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening, tvmazeURL: replay.base)
        let (router, table) = try GuideServer.routerAndTable(server.services)
        // The refresh progress stream is a minute long: asked by the browser tests.
        let paths = table.paths.filter { !$0.path.contains("*") && $0.path != "admin/refresh/events" }
        #expect(paths.count > 60, "\(paths.count) paths")
        #expect(paths.contains { $0.path == "" && $0.methods.contains(.get) }, "the grid")
        try await Application(router: router).test(.router) { client in
            let admin = try await AccountTests.admin(client)
            let cookie = HTTPFields([HTTPField(name: .cookie, value: "tvguide_session=\(admin["tvguide_session"] ?? "")")])
            for (path, methods) in paths {
                let uri = Self.concrete(path)
                if methods.contains(.get) {
                    let get = try await client.execute(uri: uri, method: .get, headers: cookie)
                    let head = try await client.execute(uri: uri, method: .head, headers: cookie)
                    #expect(head.status == get.status, "HEAD \(uri): \(head.status) where GET is \(get.status)")
                    #expect(head.body.readableBytes == 0, "HEAD \(uri) has no body")
                    #expect(head.status != .notFound || get.status == .notFound, "HEAD \(uri)")
                }
                for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch] where !methods.contains(method) {
                    let response = try await client.execute(uri: uri, method: method, headers: cookie)
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri): \(response.status)")
                    let allow = Set((response.headers[.allow] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    #expect(allow == Set(methods.map(\.rawValue) + (methods.contains(.get) ? ["HEAD"] : [])), "\(method) \(uri): Allow \(allow)")
                }
            }
            // The ones monitors and feed checkers ask.
            for uri in ["/", "/healthz", "/xmltv.xml.gz", "/xmltv.xml"] {
                #expect(try await client.execute(uri: uri, method: .head).status == .ok, "HEAD \(uri)")
            }
            // A path nobody registered stays 404.
            #expect(try await client.execute(uri: "/no/such/page", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/no/such/page", method: .post).status != .methodNotAllowed)
        }
    }
}
