import Foundation
import Testing
@testable import GuideHTTP

/// SVG logos are parsed and written again with a drawing's elements and attributes only (issue 27, point 4).
@Suite struct SVGSanitizerTests {
    static func clean(_ text: String) -> String? { SVGSanitizer.clean(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) } }

    /// Each trick of the issue, and the output it may give at most.
    @Test(arguments: [
        #"<svg xmlns="http://www.w3.org/2000/svg"><x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script><rect/></svg>"#,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" onload\n=\"alert(1)\"><rect/></svg>",
        #"<svg xmlns="http://www.w3.org/2000/svg"><a href="&#106;avascript:alert(1)"><rect/></a></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><use href="&#106;avascript:alert(1)"/><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="javascript:alert(1)"/><rect/></a></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><animate attributeName="href" values="javascript:alert(1)"/><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="javascript:alert(1)"/><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p xmlns="http://www.w3.org/1999/xhtml">x</p></foreignObject><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(https://beacon.example/x.css);</style><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:u\72l(https://beacon.example/x)"/><rect fill="url(https://beacon.example/y)"/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><image href="https://beacon.example/z.png"/><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="https://beacon.example/#a"/><rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(data:image/svg+xml;base64,PHN2Zz4=)"/></svg>"#,
    ])
    func tricksAreNeutralised(svg: String) throws {
        let kept = try #require(Self.clean(svg), "a drawing is left: \(svg)").lowercased()
        for trace in ["script", "onload", "javascript", "alert", "iframe", "foreignobject", "<set", "<animate", "<a ", "<a>", "beacon", "<image",
                      "<style", "@import", "data:"] {
            #expect(!kept.contains(trace), "\(trace) in \(kept)")
        }
        #expect(kept.contains("<rect"), "the drawing stays: \(kept)")
    }

    @Test(arguments: [
        #"<!DOCTYPE svg [<!ATTLIST svg onload CDATA "alert(1)">]><svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>"#,
        #"<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>"#,
        #"<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>"#,
        #"<html><body><svg xmlns="http://www.w3.org/2000/svg"/></body></html>"#,
        #"<svg><rect/></svg>"#,
        "not xml <svg",
        #"<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><p:rect/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg" width="1" width="2"/>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><text>&nbsp;</text></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><text>&#0;</text></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><text>&#9223372036854775807;</text></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><text>&#x110000;</text></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><text>&#-1;</text></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg">"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg"><rect x=1/></svg>"#,
        #"<svg xmlns="http://www.w3.org/2000/svg">"# + String(repeating: "<g>", count: 300) + String(repeating: "</g>", count: 300) + "</svg>",
    ])
    func documentsThatDeclareOrAreNotSVGAreRefused(text: String) {
        #expect(Self.clean(text) == nil, "\(text)")
    }

    /// A real logo's drawing survives: gradients by local reference, styles without references, text escaped, the
    /// public DTD line Illustrator writes, and editors' own namespaces dropped.
    @Test func aRealLogoKeepsItsDrawing() throws {
        let logo = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" viewBox="0 0 100 40" inkscape:version="1.2">
              <metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>
              <defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/><stop offset="1" style="stop-color:#000"/></linearGradient></defs>
              <g transform="translate(2 2)"><rect width="96" height="36" rx="4" fill="url(#g)"/><use xlink:href="#t"/>
              <text id="t" x="10" y="25" style="font-family:Arial;fill:#c00">BBC &amp; &lt;One&gt;</text></g>
            </svg>
            """
        let kept = try #require(Self.clean(logo))
        #expect(kept.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 40">"#))
        #expect(kept.contains(##"<rect fill="url(#g)" height="36" rx="4" width="96"></rect>"##))
        #expect(kept.contains(##"<use xlink:href="#t"></use>"##))
        #expect(kept.contains("BBC &amp; &lt;One&gt;</text>"))
        #expect(kept.contains(##"<stop offset="1" style="stop-color:#000"></stop>"##))
        #expect(!kept.contains("inkscape") && !kept.contains("metadata") && !kept.contains("rdf"))
        // What it writes is itself what it keeps.
        #expect(Self.clean(kept) == kept)
    }
}
