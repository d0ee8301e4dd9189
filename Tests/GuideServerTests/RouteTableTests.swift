import Foundation
import GuideCore
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

    /// A template's link names its path (`{@season show.id number}`), resolved when the templates load; a name that is
    /// no path, values that do not fill it, or a value that is neither a page's nor quoted stop them loading.
    @Test func aTemplatesLinksAreResolvedFromTheirPaths() throws {
        #expect(try SiteLinks.resolved(#"<a href="{@season show.id number}">"#) == #"<a href="/shows/{{show.id}}/seasons/{{number}}">"#)
        #expect(try SiteLinks.resolved(#"<a href="{@guide}">"#) == #"<a href="/">"#)
        #expect(try SiteLinks.resolved(#"<a href="{@signIn}?next={{returnTo}}">"#) == #"<a href="/signin?next={{returnTo}}">"#)
        #expect(try SiteLinks.resolved(#"<script src="{@asset 'grid.js'}">"#) == #"<script src="/static/grid.js">"#)
        #expect(throws: TemplateError.self) { try SiteLinks.resolved(#"<a href="{@nowhere}">"#) }
        #expect(throws: TemplateError.self) { try SiteLinks.resolved(#"<a href="{@show}">"#) }
        #expect(throws: TemplateError.self) { try SiteLinks.resolved(#"<a href="{@show id extra}">"#) }
        #expect(throws: TemplateError.self) { try SiteLinks.resolved(#"<a href="{@show {{id}}}">"#) }
        #expect(throws: TemplateError.self) { try SiteLinks.resolved(#"<a href="{@show id">"#) }
    }

    /// Every link a template or a script writes names a route that takes its method (issue 27, point 1): a form's
    /// action its method (GET unless it says POST), every other address of a template GET; a script's address, any
    /// method (the script says which where it fetches). A link to a path that moved, or a form
    /// posting where only GET is taken, fails here rather than in a viewer's browser.
    @Test func everyTemplateAndScriptLinkNamesARoute() async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        let (_, table) = try GuideServer.routerAndTable(server.services)
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/GuideServer/Resources")
        var links: [(file: String, path: String, method: HTTPRequest.Method?)] = []
        for folder in ["templates", "static"] {
            let directory = resources.appendingPathComponent(folder)
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path)
            where file.hasSuffix(".mustache") || file.hasSuffix(".js") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                let isTemplate = file.hasSuffix(".mustache")
                // A template names its paths ({@show showID}); none is written out.
                #expect(!isTemplate || Self.links(in: text, isTemplate: true).isEmpty,
                        "\(file) writes a site path itself: \(Self.links(in: text, isTemplate: true).map(\.path))")
                links += Self.links(in: isTemplate ? try SiteLinks.resolved(text) : text, isTemplate: isTemplate).map { (file, $0.path, $0.method) }
            }
        }
        #expect(links.count > 150, "\(links.count) links")
        // Every path a template may name is one the router takes.
        for (name, path) in SiteLinks.named {
            #expect(table.methods(for: path.filled(path.names.map { _ in "1" })) != nil, "{@\(name)}: \(path) is no route")
        }
        #expect(links.contains { $0.path == "/admin/tokens" && $0.method == .post })
        #expect(links.contains { $0.path == "/shows/1/seasons/1" && $0.method == .get })
        for link in links {
            let methods = table.methods(for: link.path)
            #expect(link.method.map { methods?.contains($0) == true } ?? (methods != nil),
                    "\(link.file): \(link.method?.rawValue ?? "any method") \(link.path) is taken by \(methods.map { "\($0.map(\.rawValue).sorted())" } ?? "no route")")
        }
    }

    /// The site's paths in templates (`href="/shows/{{id}}"`, a form's `action`) and scripts (`"/grid/rows"`), each
    /// with a value in place of its `{{…}}` parts and without its query.
    static func links(in text: String, isTemplate: Bool) -> [(path: String, method: HTTPRequest.Method?)] {
        func path(_ raw: Substring) -> String {
            let filled = raw.replacing(/\{\{[^}]*\}\}/, with: "1")
            return String(filled.prefix { $0 != "?" && $0 != "#" })
        }
        guard isTemplate else {
            return text.matches(of: /["'`](\/[a-z][A-Za-z0-9\/._-]*)/).map { (path($0.output.1), nil) }
                .filter { !$0.path.hasSuffix("/") || $0.path == "/" }
        }
        var links = text.matches(of: /<form\b[^>]*>/).compactMap { tag -> (String, HTTPRequest.Method?)? in
            guard let action = tag.output.firstMatch(of: /action="(\/[^"]*)"/)?.output.1 else { return nil }
            return (path(action), tag.output.contains("method=\"post\"") ? .post : .get)
        }
        links += text.matches(of: /(?:href|src|data-events)="(\/[^"\/][^"]*|\/)"/).map { (path($0.output.1), HTTPRequest.Method.get) }
        return links
    }

    /// A path's links are built from it, from typed values: each percent-encoded in its segment, and a query after it.
    @Test func sitePathsBuildTheirLinks() {
        #expect(SitePath.guide() == "/")
        #expect(SitePath.season(TVMazeNumber(12), SeasonNumber(3)) == "/shows/12/seasons/3")
        #expect(SitePath.programme(ProgrammeID(rawValue: 42)) == "/programmes/42")
        #expect(SitePath.historyImportJob(PathText("a/b?c")) == "/history/imports/a%2Fb%3Fc")
        #expect(SitePath.reminders(query: "done=" + SitePath.encoded("Saved & sent #1")) == "/reminders?done=Saved%20%26%20sent%20%231")
        #expect(SitePath.now(query: "&genre=news") == "/now?genre=news")
        #expect(SitePath.now(query: "") == "/now")
        #expect(SitePath.lineupFeed(FeedFile("TOKEN", .compressed)) == "/xmltv/TOKEN.xml.gz")
        #expect(SitePath.calendarFeed(CalendarFile("TOKEN")) == "/calendar/TOKEN.ics")
        #expect(SitePath.season.path.matches("/shows/1/seasons/2") && !SitePath.season.path.matches("/shows/1"))
        // What a link is built from, a request's segment is parsed back into; what is not one, is not.
        #expect(FeedFile(pathSegment: "TOKEN.xml.gz") == FeedFile("TOKEN", .compressed) && FeedFile(pathSegment: "TOKEN.txt") == nil)
        #expect(TVMazeNumber(pathSegment: "0") == nil && TVMazeNumber(pathSegment: "1000000000") == nil && TVMazeNumber(pathSegment: "7")?.rawValue == 7)
        #expect(ProgrammeID(pathSegment: "-1") == nil && ProgrammeID(pathSegment: "9223372036854775808") == nil)
        // Hostile segments: each number type takes only a plain whole number in its range.
        for hostile in ["-1", "1e308", "nan", "inf", "+5", "05", " 5", "5 ", "0x10", "", "9223372036854775808", "١٢"] {
            #expect(RowNumber(pathSegment: hostile) == nil && TVMazeNumber(pathSegment: hostile) == nil
                    && SeasonNumber(pathSegment: hostile) == nil && ProgrammeID(pathSegment: hostile) == nil, "\(hostile)")
        }
        // Season 0 is a show's specials; no row or show is 0.
        #expect(SeasonNumber(pathSegment: "0") != nil && RowNumber(pathSegment: "0") == nil && TVMazeNumber(pathSegment: "0") == nil)
        #expect(RowNumber(pathSegment: "9223372036854775807")?.rawValue == Int64.max)
        #expect(TVMazeNumber(pathSegment: "9223372036854775807") == nil && SeasonNumber(pathSegment: "9223372036854775807") == nil)
    }

    /// A segment that is not its type's is refused before the handler runs, as its type says (404, or 400 for a programme).
    @Test func aSegmentThatIsNotItsTypeIsNotFound() async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.run { client in
            for path in ["/programmes/999999/calendar.ics", "/shows/0", "/shows/1/seasons/1000000",
                         "/episodes/-3", "/people/x", "/xmltv/TOKEN.txt", "/calendar/TOKEN.json"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .notFound, "\(path): \(response.status)")
            }
            // A programme's path says what it takes (400), as it did before its value was typed.
            for path in ["/programmes/abc", "/programmes/0", "/programmes/-1/calendar.ics"] {
                let programme = try await client.execute(uri: path, method: .get)
                #expect(programme.status == .badRequest && String(buffer: programme.body).contains("ends in its number"), "\(path)")
            }
        }
    }
}
