import Foundation
import GuideIngest
import Synchronization

/// Show, episode and person images on disk. TVmaze never changes what an image URL shows (a new image gets a new
/// URL), so a file once fetched is kept for good and never asked for again.
public final class ImageCache: Sendable {
    public let directory: String
    let transport: any HTTPTransport
    /// Only images from these hosts are fetched (the server asks on its viewers' behalf; it is not an open proxy).
    let hosts: Set<String>
    static let largest = 8 * 1024 * 1024
    /// After a host fails to answer, images from it are not asked for this long: a page of 20 posters offline
    /// costs one timeout, not 20.
    let pause: TimeInterval
    private let downUntil = Mutex<[String: Date]>([:])

    public init(directory: String, transport: any HTTPTransport = AsyncHTTPTransport.shared,
                hosts: Set<String> = ["static.tvmaze.com"], pause: TimeInterval = 300) {
        self.directory = directory
        self.transport = transport
        self.hosts = hosts
        self.pause = pause
    }

    /// The file for `url`, fetched the first time. nil for a URL from another host or one that does not answer with
    /// an image.
    public func file(for url: String) async throws -> (path: String, contentType: String)? {
        guard let parsed = URL(string: url), let host = parsed.host, hosts.contains(host),
              ["http", "https"].contains(parsed.scheme ?? "") else { return nil }
        let type = Self.contentType(parsed.pathExtension)
        let path = directory + "/" + Self.name(for: url) + "." + (parsed.pathExtension.isEmpty ? "img" : parsed.pathExtension.lowercased())
        if FileManager.default.fileExists(atPath: path) { return (path, type) }
        if let until = downUntil.withLock({ $0[host] }), until > Date() { return nil }
        let reply: HTTPReply
        do {
            reply = try await transport.get(parsed, headers: [])
        } catch {
            downUntil.withLock { $0[host] = Date().addingTimeInterval(pause) }
            throw error
        }
        var body = Data()
        while let chunk = try await reply.next() {
            body.append(contentsOf: chunk.readableBytesView)
            if body.count > Self.largest { return nil }
        }
        guard reply.status == 200, !body.isEmpty else { return nil }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Written whole under another name, then moved: a reader never sees half an image.
        let partial = path + ".\(UUID().uuidString).part"
        try body.write(to: URL(fileURLWithPath: partial))
        _ = try? FileManager.default.replaceItemAt(URL(fileURLWithPath: path), withItemAt: URL(fileURLWithPath: partial))
        if !FileManager.default.fileExists(atPath: path) { try FileManager.default.moveItem(atPath: partial, toPath: path) }
        return (path, type)
    }

    /// A stable file name for a URL: 64-bit FNV-1a of it, in hex.
    static func name(for url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    static func contentType(_ pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "png": "image/png"
        case "webp": "image/webp"
        case "gif": "image/gif"
        default: "image/jpeg"
        }
    }
}
