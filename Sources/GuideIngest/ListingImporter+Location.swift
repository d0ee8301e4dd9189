import Foundation
import GuideCore
import GuideHTTP
import GuideStore

extension ListingImporter {
    /// Imports a file path or an http(s) URL (downloaded first, with the retries and limits of a refresh, and named
    /// as the source by its URL). The import reads on a thread of its own, so a server's event loops and Swift's
    /// executor stay free.
    public func importLocation(_ location: String, transport: any HTTPTransport, clock: GuideClock,
                               progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        // A local file is imported as it is: the fetcher's parse-while-reading check would only read it twice.
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return try await importFile(at: location, as: SourceName(location: location), progress: progress)
        }
        let fetcher = FeedFetcher(transport: transport, policy: FetchPolicy(), clock: clock.waits, now: clock.now)
        guard case .fetched(let feed) = try await fetcher.fetch(location, validators: nil, localZone: nil, progress: { feed in
            progress(ImportProgress(bytesRead: feed.bytes, totalBytes: feed.totalBytes, programmes: feed.programmes))
        }) else {
            throw IngestError(.download, saying: "{location} answered 304 Not Modified to a request that asked for the whole feed", ["location": location])
        }
        defer { feed.discard() }
        return try await importFiles([(feed.path, feed.location)], as: SourceName(location: location), transform: ListingTransform(),
                                     removingOnceRead: FetchedFeed.temporaryPaths([feed]), progress: progress)
    }
}
