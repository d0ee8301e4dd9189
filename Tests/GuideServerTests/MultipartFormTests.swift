import Foundation
@testable import GuideServer
import NIOCore
import Testing

/// A posted file form as ``MultipartForm`` reads it: what a browser sends, and bodies that
/// are not well formed, refused whole.
@Suite struct MultipartFormTests {
    static let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
    static let type = "multipart/form-data; boundary=\(boundary)"

    static func body(_ parts: [(disposition: String, bytes: [UInt8])], closing: String = "--\(boundary)--\r\n") -> ByteBuffer {
        var body: [UInt8] = []
        for part in parts {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; \(part.disposition)\r\nContent-Type: text/csv\r\n\r\n".utf8)
            body += part.bytes + Array("\r\n".utf8)
        }
        return ByteBuffer(bytes: body + Array(closing.utf8))
    }

    @Test func aBrowsersFormReadsAsItWasSent() throws {
        // A file whose bytes hold line ends, a lone CR, a dash run and most of the boundary: all kept.
        let file = Array("show,season\r\nElite,1\r\r\n--\(Self.boundary.dropLast())\n".utf8) + [0, 0xFF, 0x0D]
        let form = try #require(MultipartForm(contentType: Self.type, body: Self.body([
            (#"name="csrf""#, Array("token-1".utf8)),
            (#"name="files"; filename="tv time; export.csv""#, file),
            (#"name="files"; filename="""#, []),
        ])))
        #expect(form.text("csrf") == "token-1")
        #expect(form.files("files").map(\.name) == ["tv time; export.csv"])
        #expect(form.files("files").first?.bytes == file)
    }

    @Test func aFormThatIsNotOneIsRefusedWhole() {
        let part = [(disposition: #"name="csrf""#, bytes: Array("t".utf8))]
        // Cut short before its closing delimiter; a part with no name; not a form at all; no boundary; a boundary too long.
        #expect(MultipartForm(contentType: Self.type, body: Self.body(part, closing: "--\(Self.boundary)\r\nContent-Dis")) == nil)
        #expect(MultipartForm(contentType: Self.type, body: Self.body([("filename=\"a.csv\"", [1])])) == nil)
        #expect(MultipartForm(contentType: "application/x-www-form-urlencoded", body: Self.body(part)) == nil)
        #expect(MultipartForm(contentType: "multipart/form-data", body: Self.body(part)) == nil)
        #expect(MultipartForm(contentType: "multipart/form-data; boundary=" + String(repeating: "b", count: 71), body: Self.body(part)) == nil)
        // Headers that break the syntax.
        var broken = Self.body(part)
        broken.setBytes(Array("\n".utf8), at: Self.boundary.utf8.count + 2)
        #expect(MultipartForm(contentType: Self.type, body: broken) == nil)
        // A byte past 0x7F in a header's name (multipart-kit 4.7.1 traps on it): a part with no disposition, refused.
        var foreign = Self.body(part)
        foreign.setBytes([0xC3, 0xB6], at: Self.boundary.utf8.count + 5)
        #expect(MultipartForm(contentType: Self.type, body: foreign) == nil)
    }

    @Test func partsPastTheBoundAreLeftUnread() throws {
        let parts = (0..<(MultipartForm.mostParts + 10)).map { (disposition: #"name="f\#($0)""#, bytes: Array("v".utf8)) }
        let form = try #require(MultipartForm(contentType: Self.type, body: Self.body(parts)))
        #expect(form.parts.count == MultipartForm.mostParts && form.text("f0") == "v" && form.text("f70") == nil)
    }
}
