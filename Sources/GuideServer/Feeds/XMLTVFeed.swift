import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import Hummingbird

/// `/xmltv.xml` and `/xmltv.xml.gz`: the whole guide for Jellyfin, Plex, Kodi and friends. Written to a file once per
/// version of the listings and served from it; `ETag` and `Last-Modified` let a media server skip an unchanged guide.
struct XMLTVFeed: Sendable {
    let store: any ListingStore
    let directory: ChannelDirectory
    let settings: ServerSettings
    let cache: ExportCache

    func register(on routes: RouteGroups) {
        routes.open.get(.xmltv) { request, context in try await serve(request, context, compressed: false) }
        routes.open.get(.xmltvCompressed) { request, context in try await serve(request, context, compressed: true) }
    }

    func serve(_ request: Request, _ context: some GuideContext, compressed: Bool) async throws -> Response {
        let version = try await store.version()
        let tag = "\"tvguide-\(version.generation)\(compressed ? "-gz" : "")\""
        var headers: HTTPFields = [.eTag: tag, .cacheControl: "no-cache"]
        if let updated = version.updated { headers[.lastModified] = HTTPDate.format(updated) }
        headers[.contentType] = compressed ? "application/gzip" : "application/xml; charset=utf-8"
        if Self.isUnchanged(request, tag: tag, updated: version.updated) {
            return Response(status: .notModified, headers: headers)
        }
        // Channels as the server describes them: a playlist's numbers, and logos from tvguide's cache at this address.
        let base = settings.publicAddress(for: request, local: context.local)
        let channels = try await directory.snapshot().channels.map {
            MediaServerShape.numberedWithLogo($0, logo: ChannelLogos.address(of: $0).map { base + $0 })
        }
        let path = try await cache.file(generation: version.generation, base: base, compressed: compressed, channels: channels)
        if compressed { headers[.contentDisposition] = "attachment; filename=\"xmltv.xml.gz\"" }
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `If-None-Match` wins over `If-Modified-Since`, as RFC 9110 says.
    static func isUnchanged(_ request: Request, tag: String, updated: Date?) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            return match == "*" || match.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
        }
        if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse), let updated {
            return updated.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}

/// The export files: for each kind, those of one version of the listings (older versions are removed once a newer
/// one is made), each in at most ``variantsPerVersion`` variants (the address logos are named under, which follows
/// the request's `Host` when no `--public-url` is set). Concurrent requests for one file wait for the one making it.
actor ExportCache {
    let store: any ListingStore
    let directory: String
    private var pending: [String: Task<String, any Error>] = [:]
    /// Past this many variants of one version, a request is given one already made (its logos named under another
    /// address) rather than the whole guide written again: a client sending a new `Host` each time cannot keep a core
    /// busy writing exports or fill the disk with them. Two or three media servers reaching the guide by different
    /// addresses fit.
    static let variantsPerVersion = 4

    init(store: any ListingStore, directory: String) {
        self.store = store
        self.directory = directory
    }

    func file(generation: Int64, base: String, compressed: Bool, channels: [Channel]) async throws -> String {
        let store = self.store
        return try await file(kind: "guide", version: "\(generation)", variant: ImageCache.name(for: base),
                              ending: compressed ? "xml.gz" : "xml") { path in
            try await GuideExport(store: store, artwork: ProgrammeArtworkImages.address(at: base)).write(to: path, compressed: compressed, channels: channels)
        }
    }

    /// The file `kind-version-variant.ending`, made by `make` (given the path to write) unless it exists or this
    /// version already has ``variantsPerVersion`` variants; once made, the other versions of `kind` are removed.
    func file(kind: String, version: String, variant: String, ending: String,
              make: @escaping @Sendable (String) async throws -> Void) async throws -> String {
        let directory = self.directory
        let stem = "\(directory)/\(kind)-\(version)-"
        let path = stem + variant + "." + ending
        if FileManager.default.fileExists(atPath: path) { return path }
        if let task = pending[path] { return try await task.value }
        let isSibling = { (candidate: String) in candidate.hasPrefix(stem) && candidate.hasSuffix("." + ending) }
        let made = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).map { "\(directory)/\($0)" }.filter(isSibling)
        let making = pending.filter { isSibling($0.key) }.map(\.value)
        if made.count + making.count >= Self.variantsPerVersion {
            if let first = made.min() { return first }
            if let first = making.first { return try await first.value }
        }
        let task = Task<String, any Error> {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try await make(path)
            // Older versions are no longer served.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            where name.hasPrefix("\(kind)-") && !"\(directory)/\(name)".hasPrefix(stem) && !name.hasSuffix(".partial") {
                try? FileManager.default.removeItem(atPath: "\(directory)/\(name)")  // A file another request still streams stays readable until closed.
            }
            return path
        }
        pending[path] = task
        defer { pending[path] = nil }
        return try await task.value
    }
}
