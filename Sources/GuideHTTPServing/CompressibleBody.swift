import GuideApplication
import GuideIngest
import Hummingbird

/// Text bodies sent gzip-compressed to clients that accept it: a grid page of 60 channels is ~380 KB of HTML and
/// ~35 KB compressed, which a phone on a slow network notices.
public enum CompressibleBody {
    /// `compressed` gives the gzip form when one was kept (else it is made here).
    public static func response(_ bytes: [UInt8], for request: Request, status: HTTPResponse.Status = .ok, headers: HTTPFields,
                                compressed: (() -> [UInt8]?)? = nil) -> Response {
        var headers = headers
        headers[.vary] = "Accept-Encoding"
        if bytes.count > 1024, accepts(request), let compressed = compressed?() ?? GzipCompression.compress(bytes) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: compressed)))
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    public static func accepts(_ request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        return header.split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return pieces.first == "gzip" && !pieces.dropFirst().contains("q=0")
        }
    }
}

extension HDHomeRunDevice.Answer {
    /// The answer as every door sends it: not cached, compressed when it may be and the client accepts it.
    public func response(for request: Request) -> Response {
        let headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-cache"]
        guard compressible else { return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))) }
        return CompressibleBody.response(bytes, for: request, headers: headers)
    }
}
