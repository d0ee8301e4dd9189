import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideHTTPServing
import GuideIngest
import GuideStore
import GuideWebFormats
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
        let languages = try Self.languages(request)
        let version = try await store.version()
        let tag = "\"tvguide-\(version.generation)\(compressed ? "-gz" : "")\(languages.isEmpty ? "" : "-" + languages.joined(separator: "."))\""
        var headers: HTTPFields = [.eTag: tag, .cacheControl: "no-cache"]
        if let updated = version.updated { headers[.lastModified] = HTTPDate.format(updated) }
        headers[.contentType] = compressed ? "application/gzip" : "application/xml; charset=utf-8"
        if Self.isUnchanged(request, tag: tag, updated: version.updated) {
            return Response(status: .notModified, headers: headers)
        }
        // Channels as the server describes them: a playlist's numbers, and logos from tvguide's cache at this address.
        // Those with programmes only: one with none tells a media server nothing, and is an error to the XMLTV
        // project's validator. (`tvguide export` writes every channel, to be imported back whole.)
        let base = settings.publicAddress(for: request, local: context.local)
        let channels = try await directory.snapshot().listed.map {
            MediaServerShape.numberedWithLogo($0, logo: ChannelLogos.address(of: $0).map { base + $0 })
        }
        let store = self.store
        let path = try await cache.file(kind: "guide", version: "\(version.generation)", variant: ImageCache.name(for: base + "?" + languages.joined(separator: ",")),
                                        ending: compressed ? "xml.gz" : "xml") { path in
            try await GuideExport(store: store, artwork: ProgrammeArtworkImages.address(at: base))
                .write(to: path, compressed: compressed, channels: channels, languages: languages)
        }
        if compressed { headers[.contentDisposition] = "attachment; filename=\"xmltv.xml.gz\"" }
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `?lang=de,en`: the languages whose titles and descriptions come first in the feed, for a media server that
    /// shows the first (8 at most); the lineup feeds take it too. Anything but language tags is refused.
    static func languages(_ request: Request) throws -> [String] {
        let text = QueryParameters(request: request).string("lang") ?? ""
        guard let languages = LocalizedText.languages(in: text) else {
            throw Refusal(.badRequest, saying: "lang is language codes separated by commas (de,en), {count} at most",
                          ["count": String(LocalizedText.mostLanguages)])
        }
        return languages
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
