import Crypto
import Foundation
import GuideCore
import GuideHTTPServing
import GuideIngest
import Hummingbird

/// The stylesheets and script in Resources/static, held in memory (a few tens of KB), plus `grid-units.css`, made
/// here: one class per minute of offset and length (`.o125`, `.d45`), so the server can place programmes on the grid
/// without inline styles, which the content security policy forbids.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        var body: [UInt8]
        var contentType: String
        /// The body gzip-compressed, made once at startup.
        var compressed: [UInt8]?
    }

    private let assets: [String: Asset]
    /// A hash of every asset, appended to their URLs so a new build's files are fetched at once.
    let version: String

    init() throws {
        guard let folder = Bundle.module.url(forResource: "static", withExtension: nil) else {
            throw TemplateError("this build has no static folder")
        }
        var assets: [String: Asset] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            assets[file] = Asset(body: [UInt8](data), contentType: Self.contentType(of: file), compressed: GzipCompression.compress([UInt8](data), level: 9))
        }
        let units = Array(Self.gridUnits.utf8)
        assets["grid-units.css"] = Asset(body: units, contentType: "text/css; charset=utf-8", compressed: GzipCompression.compress(units, level: 9))
        var hasher = SHA256()
        for name in assets.keys.sorted() { hasher.update(data: assets[name]?.body ?? []) }
        version = hasher.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
        self.assets = assets
    }

    /// Offsets and lengths up to 25 hours (the day the clocks go back), plus hour marks.
    static var gridUnits: String {
        var css = "/* Made by StaticAssets.swift: minute offsets (o) and lengths (d) on the grid. */\n"
        for minute in 0...1500 { css += ".o\(minute){--o:\(minute)}.d\(minute){--d:\(minute)}\n" }
        return css
    }

    /// The file `name`; `isVersioned` when its address carries ``version`` (kept a week, never asked again), else
    /// checked with the server every time (the service worker, whose address cannot change).
    func response(for name: String, request: Request, isVersioned: Bool = true) throws -> Response {
        guard let asset = assets[name] else { throw Refusal(.notFound, saying: "no file {name}", ["name": name]) }
        var headers: HTTPFields = [.contentType: asset.contentType, .vary: "Accept-Encoding",
                                   .cacheControl: isVersioned ? "public, max-age=604800, immutable" : "no-cache"]
        if let compressed = asset.compressed, CompressibleBody.accepts(request) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: compressed)))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.body)))
    }

    private static func contentType(of file: String) -> String {
        switch file.split(separator: ".").last {
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }
}
