import Foundation
import Hummingbird
import MultipartKit
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

    /// The form in `body`, or nil when it is not one by its `contentType` (or it is not well formed: multipart-kit's parser
    /// refused it, or it does not end with its closing delimiter). Parts past ``mostParts`` are left unread.
    init?(contentType type: String?, body: ByteBuffer) {
        guard let type, type.lowercased().hasPrefix("multipart/form-data"),
              let boundary = Self.parameter("boundary", in: type), !boundary.isEmpty, boundary.utf8.count <= 70 else { return nil }
        // The closing delimiter, then at most a line end: a body cut short has no last part to trust.
        let closing = Array("--\(boundary)--".utf8)
        let end = body.readableBytesView.reversed().drop(while: { $0 == 0x0A || $0 == 0x0D }).count
        guard end >= closing.count, body.readableBytesView.prefix(end).suffix(closing.count).elementsEqual(closing) else { return nil }
        var parts: [Part] = []
        var disposition = "", bytes: [UInt8] = [], unnamed = false
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in if name.lowercased() == "content-disposition" { disposition = value } }
        parser.onBody = { chunk in bytes += chunk.readableBytesView }
        parser.onPartComplete = {
            let name = Self.parameter("name", in: disposition)
            unnamed = unnamed || name == nil
            if parts.count < Self.mostParts, let name {
                parts.append(Part(name: name, filename: Self.parameter("filename", in: disposition), bytes: bytes))
            }
            disposition = ""
            bytes = []
        }
        guard (try? parser.execute(body)) != nil, !unnamed else { return nil }
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
}
