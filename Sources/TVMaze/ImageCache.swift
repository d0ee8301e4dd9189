import Foundation
import GuideHTTP
import Synchronization

/// Show, episode and person images on disk. TVmaze never changes what an image URL shows (a new image gets a new
/// URL), so a file once fetched is kept and never asked for again, until the cache is full: then the images used
/// longest ago make room.
///
/// The server asks on its viewers' behalf, so it is not an open proxy: only URLs on the allowed origins (TVmaze's image
/// host over https on its default port), with a plain path and no query, user or fragment, are fetched. Each image
/// has one URL, so a guest cannot store copies of one image under many.
public final class ImageCache: Sendable {
    public let directory: String
    let transport: any HTTPTransport
    /// `scheme://host[:port]` of the servers images come from, the port only when not the scheme's default.
    let origins: Set<String>
    /// The most bytes kept on disk.
    public let largestTotal: Int
    /// The largest image fetched.
    static let largest = 8 * 1024 * 1024
    /// After a host fails to answer, images from it are not asked for this long: a page of 20 posters offline
    /// costs one timeout, not 20.
    let pause: TimeInterval
    private let downUntil = Mutex<[String: Date]>([:])
    /// The files on disk, by name: size and last use (read from the folder once).
    private let index = Mutex<[String: (bytes: Int, used: Date)]?>(nil)

    public init(directory: String, transport: any HTTPTransport,
                origins: Set<String> = ["https://static.tvmaze.com"], largestTotal: Int = 256 * 1024 * 1024,
                pause: TimeInterval = 300) {
        self.directory = directory
        self.transport = transport
        self.origins = origins
        self.largestTotal = largestTotal
        self.pause = pause
    }

    /// An image URL in its one written form (`https://static.tvmaze.com/uploads/...jpg`), or nil when it is not one
    /// this cache fetches.
    public func canonical(_ text: String) -> URL? {
        guard text.utf8.count <= 512, let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
              let host = parts.host?.lowercased(), !host.isEmpty, parts.query == nil, parts.fragment == nil,
              parts.user == nil, parts.password == nil else { return nil }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let origin = "\(scheme)://\(host)" + (parts.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
        let path = parts.percentEncodedPath
        guard origins.contains(origin), path.hasPrefix("/"), !path.contains(".."),
              path.utf8.allSatisfy({ Self.pathBytes.contains($0) }) else { return nil }
        return URL(string: origin + path)
    }

    /// Whether `url`'s image is on disk (asking for it costs the server nothing).
    public func isCached(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: path(for: url))
    }

    /// The file for `url` (canonical: ``canonical(_:)``), fetched the first time. nil for one that does not answer
    /// with an image.
    public func file(for url: URL) async throws -> (path: String, contentType: String)? {
        guard let host = url.host else { return nil }
        let type = Self.contentType(url.pathExtension)
        let path = path(for: url)
        if FileManager.default.fileExists(atPath: path) {
            touch(path)
            return (path, type)
        }
        if let until = downUntil.withLock({ $0[host] }), until > Date() { return nil }
        let reply: HTTPReply
        do {
            reply = try await transport.get(url, headers: [])
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
        added(path, bytes: body.count)
        return (path, type)
    }

    /// The bytes the cache holds now.
    public var totalBytes: Int {
        loadedIndex { $0.values.reduce(0) { $0 + $1.bytes } }
    }

    private func path(for url: URL) -> String {
        let ending = url.pathExtension.isEmpty ? "img" : url.pathExtension.lowercased()
        return directory + "/" + Self.name(for: url.absoluteString) + "." + String(ending.prefix(8))
    }

    private func touch(_ path: String) {
        let name = (path as NSString).lastPathComponent
        loadedIndex { index in index[name]?.used = Date() }
    }

    /// Records a new file, then removes the images used longest ago until the cache is within its size.
    private func added(_ path: String, bytes: Int) {
        let name = (path as NSString).lastPathComponent
        let evicted: [String] = loadedIndex { index in
            index[name] = (bytes, Date())
            var total = index.values.reduce(0) { $0 + $1.bytes }
            var evicted: [String] = []
            for (oldest, entry) in index.sorted(by: { $0.value.used < $1.value.used }) where total > largestTotal && oldest != name {
                index[oldest] = nil
                total -= entry.bytes
                evicted.append(oldest)
            }
            return evicted
        }
        for name in evicted {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)  // Gone already is as good as removed.
        }
    }

    private func loadedIndex<T>(_ body: (inout [String: (bytes: Int, used: Date)]) -> T) -> T {
        index.withLock { stored in
            var index = stored ?? Self.scan(directory)
            defer { stored = index }
            return body(&index)
        }
    }

    /// What the folder holds, by name, its files' modification times standing for their last use.
    private static func scan(_ directory: String) -> [String: (bytes: Int, used: Date)] {
        var index: [String: (bytes: Int, used: Date)] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !name.hasSuffix(".part") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name) else { continue }
            index[name] = ((attributes[.size] as? NSNumber)?.intValue ?? 0, attributes[.modificationDate] as? Date ?? .distantPast)
        }
        return index
    }

    /// Letters, digits and `/._-~`: what image paths are made of.
    private static let pathBytes: Set<UInt8> = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~".utf8))

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
