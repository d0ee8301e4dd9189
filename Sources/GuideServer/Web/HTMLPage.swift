import GuideIngest
import Hummingbird

/// A rendered page.
struct HTMLPage: ResponseGenerator {
    var html: String
    var status: HTTPResponse.Status = .ok
    /// Seconds after which the browser loads the page again (a `Refresh` header): a page saying how far work is.
    var refresh: Int?

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        if let refresh, let name = HeaderNames.refresh { headers[name] = String(refresh) }
        return CompressibleBody.response(Array(html.utf8), for: request, status: status, headers: headers)
    }
}

/// Text bodies sent gzip-compressed to clients that accept it: a grid page of 60 channels is ~380 KB of HTML and
/// ~35 KB compressed, which a phone on a slow network notices.
enum CompressibleBody {
    static func response(_ bytes: [UInt8], for request: Request, status: HTTPResponse.Status = .ok, headers: HTTPFields) -> Response {
        var headers = headers
        headers[.vary] = "Accept-Encoding"
        if bytes.count > 1024, accepts(request), let compressed = GzipCompression.compress(bytes) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: compressed)))
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func accepts(_ request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        return header.split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return pieces.first == "gzip" && !pieces.dropFirst().contains("q=0")
        }
    }
}

extension Response {
    /// See Other: where a form goes after it did its work, so reloading does not post it again.
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
