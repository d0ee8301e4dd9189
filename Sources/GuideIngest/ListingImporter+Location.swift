import Foundation
import GuideCore
import GuideStore
import NIOPosix

extension ListingImporter {
    /// Imports a file path or an http(s) URL (downloaded to a temporary file first, named as the source by its URL).
    /// The import itself runs on NIO's thread pool, so a server's event loops and Swift's executor stay free.
    public func importLocation(_ location: String,
                               progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        if let url = URL(string: location), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            let path = try await ListingDownloader().download(url, progress: progress)
            defer { try? FileManager.default.removeItem(atPath: path) }  // The temporary copy is ours.
            return try await NIOThreadPool.singleton.runIfActive {
                try importFile(at: path, as: SourceName(location), progress: progress)
            }
        }
        return try await NIOThreadPool.singleton.runIfActive { try importFile(at: location, progress: progress) }
    }
}
