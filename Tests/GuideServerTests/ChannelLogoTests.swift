import Foundation
import GuideCore
import GuideHTTP
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing
import TVMazeReplay

/// Channel logos through tvguide's own cache: fetched once from a loopback host, checked (images only, no SVG that
/// runs anything, a size cap), served from tvguide's address on every page and in the API, and an admin's choice
/// winning over the sources'. On both stores.
@Suite struct ChannelLogoTests {
    // SYNTHETIC image bytes: a PNG's signature and header chunk, then padding (the fixtures hold no logos).
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + Array(repeating: 1, count: 200)
    static let harmlessSVG = ##"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#c00"/></svg>"##
    static let scriptedSVGs = [
        #"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><body xmlns="http://www.w3.org/1999/xhtml">x</body></foreignObject></svg>"#,
        #"<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg"><text>&a;</text></svg>"#,
        // The issue's tricks (27, point 4): a namespaced script, a handler with a newline before =, a character
        // reference, an attribute default, a link changed by animation, a namespaced iframe, an outside image.
        #"<svg xmlns="http://www.w3.org/2000/svg"><x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script></svg>"#,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" onload\n=\"alert(1)\"><rect/></svg>",
        #"<svg xmlns="http://www.w3.org/2000/svg"><a href="&#106;avascript:alert(1)"><rect/></a></svg>"#,
        #"<!DOCTYPE svg [<!ATTLIST svg onload CDATA "alert(1)">]><svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="javascript:alert(1)"/><rect/></a></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="https://beacon.example/"/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:url(https://beacon.example/x)"/><image href="https://beacon.example/y"/></svg>"#,
    ]

    static func listings(_ base: String) -> String {
        let channel = { (id: String, icon: String) in
            #"<channel id="\#(id)"><display-name>\#(id.uppercased())</display-name><icon src="\#(icon)"/></channel>"#
        }
        return "<tv>" + [channel("png", base + "/logos/png.png"), channel("html", base + "/logos/error-page.png"),
                         channel("svg", base + "/logos/fine.svg"), channel("big", base + "/logos/big.png"),
                         channel("down", "http://127.0.0.1:9/logo.png"), channel("script", "javascript:alert(1)")].joined()
            + (0..<Self.scriptedSVGs.count).map { channel("evil\($0)", base + "/logos/evil\($0).svg") }.joined()
            + #"<programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="png"><title>News</title></programme>"#
            + #"<programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="svg"><title>Film</title></programme>"#
            + "</tv>"
    }

    @Test func logosAreFetchedOnceCheckedAndServedByTVGuide() async throws {
        let host = try await ReplayServer()
        let server = try await TestServer(listings: Self.listings(host.base), now: PlaylistSourceTests.now)
        host.script("/logos/png.png", .init(status: 200, headers: [("Content-Type", "image/png")], body: Self.png))
        host.script("/logos/error-page.png", .init(status: 200, headers: [("Content-Type", "image/png")], body: Array("<html><body>Not found</body></html>".utf8)))
        host.script("/logos/fine.svg", .init(status: 200, headers: [("Content-Type", "image/svg+xml")], body: Array(Self.harmlessSVG.utf8)))
        host.script("/logos/big.png", .init(status: 200, headers: [("Content-Type", "image/png")], body: Self.png + Array(repeating: 0, count: 70_000)))
        for (index, svg) in Self.scriptedSVGs.enumerated() {
            host.script("/logos/evil\(index).svg", .init(status: 200, headers: [("Content-Type", "image/svg+xml")], body: Array(svg.utf8)))
        }
        try await server.run { client in
            let found = try await TestServer.apiChannels(client)
            let logo = try #require(found["png"]?["logo"] as? String)
            #expect(logo.hasPrefix("/logo?c=png&v=") && found["png"]?["icon"] as? String == host.base + "/logos/png.png")
            #expect(found["script"]?["logo"] == nil, "a javascript: icon has no logo")

            // Fetched once, served as the image it is, kept by browsers for a year at this version.
            let first = try await client.execute(uri: logo, method: .get)
            #expect(first.status == .ok && first.headers[.contentType] == "image/png" && Array(buffer: first.body) == Self.png)
            #expect(first.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(try await client.execute(uri: logo, method: .get).status == .ok)
            #expect(host.requests(to: "/logos/png.png").count == 1)
            // An older version's address still answers, but only for a while.
            #expect(try await client.execute(uri: "/logo?c=png&v=0", method: .get).headers[.cacheControl] == "public, max-age=300")

            // Checked: an HTML page, a logo over the size cap and every SVG that could run something are refused.
            // An answer that is no image is remembered like one that is: page views do not ask the host again.
            for _ in 0..<3 {
                #expect(try await client.execute(uri: try #require(found["html"]?["logo"] as? String), method: .get).status == .notFound)
            }
            #expect(host.requests(to: "/logos/error-page.png").count == 1)
            #expect(try await client.execute(uri: try #require(found["big"]?["logo"] as? String), method: .get).status == .notFound)
            // Every SVG that could run or reach out is refused, or kept only as its drawing.
            for index in Self.scriptedSVGs.indices {
                let answer = try await client.execute(uri: try #require(found["evil\(index)"]?["logo"] as? String), method: .get)
                let kept = String(buffer: answer.body).lowercased()
                #expect(answer.status == .notFound || (answer.status == .ok && !["script", "onload", "javascript", "iframe", "<set", "<a",
                                                                                  "beacon", "<image", "alert"].contains(where: kept.contains)),
                        "\(Self.scriptedSVGs[index]) kept as \(kept)")
            }
            let svg = try await client.execute(uri: try #require(found["svg"]?["logo"] as? String), method: .get)
            #expect(svg.status == .ok && svg.headers[.contentType] == "image/svg+xml")
            #expect(String(buffer: svg.body).contains(##"<rect fill="#c00" height="10" width="10">"##), "the drawing is kept")
            // Opened on its own, an image is no page: nothing runs, nothing is fetched.
            #expect(svg.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            #expect(svg.headers[.contentDisposition] == "inline")
            // A host that does not answer, a channel that does not exist: 404, and the page shows the name instead.
            #expect(try await client.execute(uri: try #require(found["down"]?["logo"] as? String), method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/logo?c=nothing", method: .get).status == .notFound)

            // The grid, the now page and a programme's details show tvguide's address, never the host's.
            let escaped = logo.replacingOccurrences(of: "&", with: "&amp;")
            for page in ["/?day=2026-02-15", "/now"] {
                let html = String(buffer: try await client.execute(uri: page, method: .get).body)
                #expect(html.contains(#"src="\#(escaped)""#) && !html.contains(host.base), "\(page)")
            }
            let news = try #require(try await server.store.search(SearchQuery(["news"])).first)
            let details = String(buffer: try await client.execute(uri: "/programmes/\(news.id.rawValue)", method: .get).body)
            #expect(details.contains(escaped) && !details.contains(host.base))

            // An admin chooses another logo: it wins at once, at a new address; cleared, the source's is back.
            let guest = try await CookieJar().send(client, "/admin/channels/logo", method: .post, form: ["channel": "png", "logo": host.base + "/x.png"])
            #expect(guest.status == .seeOther || guest.status == .forbidden)
            let admin = try await AccountTests.admin(client)
            host.script("/logos/chosen.svg", .init(status: 200, body: Array(Self.harmlessSVG.utf8)))
            let refused = try await admin.send(client, "/admin/channels/logo", method: .post, form: ["channel": "png", "logo": "javascript:alert(1)"])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("http or https address"))
            let chosen = try await admin.send(client, "/admin/channels/logo", method: .post, form: ["channel": "png", "logo": host.base + "/logos/chosen.svg"])
            #expect(chosen.status == .ok && String(buffer: chosen.body).contains("PNG shows the chosen logo."))
            let changed = try #require(try await TestServer.apiChannels(client)["png"]?["logo"] as? String)
            #expect(changed != logo && changed.hasPrefix("/logo?c=png&v="))
            #expect(try await client.execute(uri: changed, method: .get).headers[.contentType] == "image/svg+xml")
            let page = String(buffer: try await admin.send(client, "/admin/channels?q=png").body)
            #expect(page.contains(#"value="\#(host.base)/logos/chosen.svg""#) && page.contains("1 channel."))
            _ = try await admin.send(client, "/admin/channels/logo", method: .post, form: ["channel": "png", "logo": ""])
            #expect(try await TestServer.apiChannels(client)["png"]?["logo"] as? String == logo)
            #expect(host.requests(to: "/logos/png.png").count == 1, "the source's logo is still kept")
        }
        try await host.stop()
    }
}
