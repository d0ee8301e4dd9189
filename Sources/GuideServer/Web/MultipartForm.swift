import Foundation
import Hummingbird
import NIOCore

/// A `multipart/form-data` body (RFC 7578): the one way a browser without a script uploads a file. Its parts by name,
/// each with its file name when it is a file. Read only from a body already collected within the route's limit; at
/// most ``mostParts`` parts.
struct MultipartForm: Sendable {
    struct Part: Sendable {
        var name: String
        var filename: String?
        var bytes: [UInt8]
    }

    let parts: [Part]
    static let mostParts = 64

    /// The form in `body`, or nil when it is not one by its `contentType` (or it is not well formed). Our own reader:
    /// multipart-kit 4.7.1's parser traps on a byte past 0x7F in a part's header name (its table of allowed bytes has
    /// 128 entries), which any stranger could post.
    init?(contentType type: String?, body: ByteBuffer) {
        guard let type, type.lowercased().hasPrefix("multipart/form-data"),
              let boundary = Self.parameter("boundary", in: type), !boundary.isEmpty, boundary.utf8.count <= 70 else { return nil }
        let bytes = Array(body.readableBytesView)
        let delimiter = Array(("--" + boundary).utf8)
        var parts: [Part] = []
        var cursor = 0
        guard let first = Self.find(delimiter, in: bytes, from: 0) else { return nil }
        cursor = first + delimiter.count
        while parts.count < Self.mostParts {
            // After a delimiter: "--" ends the form, else CRLF and a part.
            if bytes[cursor..<min(bytes.count, cursor + 2)].elementsEqual([0x2D, 0x2D]) { break }
            guard bytes[cursor..<min(bytes.count, cursor + 2)].elementsEqual([0x0D, 0x0A]) else { return nil }
            cursor += 2
            guard let headersEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: cursor),
                  let next = Self.find([0x0D, 0x0A] + delimiter, in: bytes, from: headersEnd + 4) else { return nil }
            let headers = String(decoding: bytes[cursor..<headersEnd], as: UTF8.self)
            let disposition = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-disposition:") }.map(String.init) ?? ""
            guard let name = Self.parameter("name", in: disposition) else { return nil }
            parts.append(Part(name: name, filename: Self.parameter("filename", in: disposition), bytes: Array(bytes[(headersEnd + 4)..<next])))
            cursor = next + 2 + delimiter.count
            guard cursor <= bytes.count else { return nil }
        }
        self.parts = parts
    }

    /// The file form `request` posted, as ``SessionMiddleware`` read it (within the route's upload limit) and
    /// checked its token; a 400 when it is not one.
    static func posted(_ context: some GuideContext) throws -> MultipartForm {
        guard case .files(let form) = context.posted else {
            throw Refusal(.badRequest, saying: "This form sends files: choose them, then send it from its page.")
        }
        return form
    }

    /// A text field's value.
    func text(_ name: String) -> String? {
        parts.first { $0.name == name && $0.filename == nil }.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// The files sent under `name` (a browser sends an empty part, with an empty file name, when none was chosen).
    func files(_ name: String) -> [(name: String, bytes: [UInt8])] {
        parts.filter { $0.name == name && !($0.filename ?? "").isEmpty }.map { ($0.filename ?? "", $0.bytes) }
    }

    /// `name=value` or `name="value"` in a header's parameters; a quoted value may hold `;` (a browser sends a file's
    /// name as it is, quoting it, with `"` as `%22`).
    static func parameter(_ name: String, in header: String) -> String? {
        var pieces: [Substring] = []
        var start = header.startIndex, quoted = false
        for index in header.indices {
            if header[index] == "\"" { quoted.toggle() }
            if header[index] == ";", !quoted {
                pieces.append(header[start..<index])
                start = header.index(after: index)
            }
        }
        pieces.append(header[start...])
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
