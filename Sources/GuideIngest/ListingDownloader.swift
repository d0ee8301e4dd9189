import AsyncHTTPClient
import Foundation
import NIOCore

/// Downloads a listings URL to a temporary file, streaming, so a large feed never sits in memory and a
/// broken download never reaches the store.
public struct ListingDownloader: Sendable {
    public var client: HTTPClient
    public var timeout: TimeAmount = .minutes(10)
    /// The largest download accepted.
    public var maximumBytes: Int64 = 2 << 30

    public init(client: HTTPClient = .shared) {
        self.client = client
    }

    /// Returns the path of the downloaded file; the caller removes it.
    public func download(_ url: URL, progress: @Sendable (ImportProgress) -> Void = { _ in }) async throws -> String {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw IngestError(.download, "\(url) is not an http(s) URL")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: "tvguide")
        request.headers.add(name: "Accept-Encoding", value: "identity")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw IngestError(.download, "cannot download \(url): \(error)")
        }
        guard response.status == .ok else {
            throw IngestError(.download, "cannot download \(url): the server answered \(response.status.code) \(response.status.reasonPhrase)")
        }
        let total = response.headers.first(name: "content-length").flatMap { Int64($0) }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tvguide-download-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw IngestError(.unreadable, "cannot create a temporary file for the download")
        }
        defer { try? handle.close() }  // Written data is already flushed by write(contentsOf:).
        var state = ImportProgress(bytesRead: 0, totalBytes: total, programmes: 0)
        do {
            for try await buffer in response.body {
                state.bytesRead += Int64(buffer.readableBytes)
                if state.bytesRead > maximumBytes {
                    throw IngestError(.download, "\(url) is larger than \(maximumBytes >> 20) MB; refusing it")
                }
                try handle.write(contentsOf: Data(buffer.readableBytesView))
                progress(state)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)  // A partial download is useless.
            if let error = error as? IngestError { throw error }
            throw IngestError(.download, "the download of \(url) broke off after \(state.bytesRead) bytes: \(error)")
        }
        if let total, state.bytesRead != total {
            try? FileManager.default.removeItem(atPath: path)  // A partial download is useless.
            throw IngestError(.truncated, "the download of \(url) stopped at \(state.bytesRead) of \(total) bytes")
        }
        return path
    }
}
