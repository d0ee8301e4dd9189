import Foundation
import GuideCore
import GuideThreads
import Synchronization

/// Images on disk, fetched once on viewers' behalf: TVmaze's show, episode and person images, and the channels' logos.
/// The browser asks tvguide, never the image's host, so a logo whose provider goes away or forbids hotlinking still
/// shows, and a viewer's address is not handed to third parties.
///
/// What may be fetched depends on who chose the address (``Addresses``). What is kept is checked, whatever the host
/// says it is: the bytes must be a PNG, JPEG, GIF, WebP or ICO image, or an SVG, which is kept as ``SVGSanitizer``
/// writes it again (a drawing's elements and attributes only; an error page or a script is not stored). A new address is a new
/// file: a source that changes a channel's logo changes its address, and the old file ages out.
///
/// Bounded: `largest` bytes an image, `largestTotal` bytes in all; the images used longest ago make room. Disk work
/// runs on a lane of its own (``BlockingLane``), never on the cooperative threads.
public final class ImageCache: Sendable {
    /// Which addresses the cache fetches.
    enum Addresses: Sendable {
        /// Only these origins (`scheme://host[:port]`, the port only when not the scheme's default), with a plain path
        /// and no query, user or fragment: for addresses a guest writes (`/images?u=`), so the server is not an open
        /// proxy and each image has one address.
        case origins(Set<String>)
        /// Any http or https address with no user or password that the outbound policy allows, fetched through it:
        /// for addresses the listings give (a guest names a channel, never an address).
        case listings
    }

    /// A kept image.
    public struct Stored: Sendable, Equatable {
        public var path: String
        public var contentType: String
    }

    public let directory: String
    let transport: any HTTPTransport
    let addresses: Addresses
    /// The most bytes kept on disk.
    public let largestTotal: Int
    /// The largest image fetched.
    public let largest: Int
    /// After a host (and port) fails to answer, images from it are not asked for this long: a page of 20 posters offline
    /// costs one timeout, not 20.
    let pause: TimeInterval
    /// The guide's clock: when a host may be asked again, and which file was used longest ago.
    let now: @Sendable () -> Date
    /// Hosts resting after a failure, until when; at most ``mostHostsResting`` (listings may name logos on any
    /// number of hosts), the expired ones dropped first.
    private let downUntil = Mutex<[String: Date]>([:])
    static let mostHostsResting = 1000
    /// How many hosts are resting now, for tests.
    var hostsResting: Int { downUntil.withLock { $0.count } }
    /// Addresses that answered with no image this cache keeps (an error page, a refusal, a camera's HTML), until when:
    /// asked again only after ``pause`` × 12 (an hour by default), so a page view does not fetch them again. At most
    /// ``mostFailuresKept``, the expired ones dropped first.
    private let failedUntil = Mutex<[String: Date]>([:])
    static let mostFailuresKept = 10_000
    /// The longest one fetch may take, head and body together.
    public static let fetchLimit: Duration = .seconds(30)
    /// The files on disk by the hash of their address (``name(for:)``): file name, size and last use. Read from the
    /// folder once.
    private let index = Mutex<[String: Entry]?>(nil)
    private let disk: BlockingLane

    struct Entry {
        var file: String
        var bytes: Int
        var used: Date
    }

    /// Disk work waiting at most; beyond it a request is answered "busy".
    public static let diskQueue = 64

    /// A cache of images from `origins` only (TVmaze's image host by default), fetched through `transport`.
    public convenience init(directory: String, transport: any HTTPTransport, origins: Set<String> = ["https://static.tvmaze.com"],
                            largest: Int = 8 * 1024 * 1024, largestTotal: Int = 256 * 1024 * 1024, pause: TimeInterval = 300,
                            now: @escaping @Sendable () -> Date) {
        self.init(directory: directory, transport: transport, addresses: .origins(origins), largest: largest, largestTotal: largestTotal,
                  pause: pause, now: now)
    }

    /// A cache of the images listings name (channel logos): any address, fetched only through the outbound policy.
    public convenience init(directory: String, listingsThrough transport: PolicedTransport, largest: Int = 8 * 1024 * 1024,
                            largestTotal: Int = 256 * 1024 * 1024, pause: TimeInterval = 300, now: @escaping @Sendable () -> Date) {
        self.init(directory: directory, transport: transport, addresses: .listings, largest: largest, largestTotal: largestTotal, pause: pause,
                  now: now)
    }

    private init(directory: String, transport: any HTTPTransport, addresses: Addresses, largest: Int, largestTotal: Int, pause: TimeInterval,
                 now: @escaping @Sendable () -> Date) {
        self.now = now
        self.directory = directory
        self.transport = transport
        self.addresses = addresses
        self.largest = largest
        self.largestTotal = largestTotal
        self.pause = pause
        disk = BlockingLane(label: "tvguide.images", capacity: Self.diskQueue)
    }

    /// An image address in its one written form (scheme and host in lower case, a default port left out), or nil when
    /// it is not one this cache fetches.
    public func canonical(_ text: String) -> URL? {
        guard text.utf8.count <= 1024, var parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = parts.host?.lowercased(), !host.isEmpty,
              parts.user == nil, parts.password == nil else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        switch addresses {
        case .origins(let origins):
            let origin = "\(scheme)://\(host)" + (parts.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
            let path = parts.percentEncodedPath
            guard parts.query == nil, parts.fragment == nil, origins.contains(origin), path.hasPrefix("/"), !path.contains(".."),
                  path.utf8.allSatisfy({ Self.pathBytes.contains($0) }) else { return nil }
            return URL(string: origin + path)
        case .listings:
            parts.scheme = scheme
            parts.host = host
            parts.fragment = nil
            if parts.port == defaultPort { parts.port = nil }
            if parts.percentEncodedPath.isEmpty { parts.percentEncodedPath = "/" }
            return parts.url
        }
    }

    /// Whether `url`'s image is on disk (asking for it costs the server nothing).
    public func isCached(_ url: URL) async throws -> Bool {
        try await loadedIndex { $0[Self.name(for: url.absoluteString)] != nil }
    }

    /// The file for `url` (canonical: ``canonical(_:)``), fetched the first time. nil for one that does not answer
    /// with an image this cache keeps.
    public func file(for url: URL) async throws -> Stored? {
        guard let host = url.host.map({ $0 + (url.port.map { ":\($0)" } ?? "") }) else { return nil }
        let key = Self.name(for: url.absoluteString)
        if let stored = try await stored(key) { return stored }
        if let until = downUntil.withLock({ $0[host] }), until > now() { return nil }
        if let until = failedUntil.withLock({ $0[key] }), until > now() { return nil }
        let fetched: (status: Int, body: [UInt8]?)?
        do {
            fetched = try await withTimeLimit(Self.fetchLimit) { [transport, largest] in try await Self.fetch(url, through: transport, largest: largest) }
        } catch is OutboundRefusal {
            remember(key, in: failedUntil, for: pause * 12, most: Self.mostFailuresKept)
            return nil
        } catch {
            remember(host, in: downUntil, for: pause, most: Self.mostHostsResting)
            throw error
        }
        guard let fetched else {
            remember(host, in: downUntil, for: pause, most: Self.mostHostsResting)
            return nil
        }
        guard fetched.status == 200, let body = fetched.body else {
            remember(key, in: failedUntil, for: pause * 12, most: Self.mostFailuresKept)
            return nil
        }
        return try await kept(body, as: key)
    }

    /// The image kept under `name` (one no address names: SD's artwork for a series, whose addresses change), got
    /// by `fetch` the first time; nil when `fetch` finds none (asked again only after ``pause`` × 12) or its bytes
    /// are no image this cache keeps.
    public func file(named name: String, fetch: @Sendable () async throws -> [UInt8]?) async throws -> Stored? {
        let key = Self.name(for: "named:" + name)
        if let stored = try await stored(key) { return stored }
        if let until = failedUntil.withLock({ $0[key] }), until > now() { return nil }
        guard let body = try await fetch(), body.count <= largest else {
            remember(key, in: failedUntil, for: pause * 12, most: Self.mostFailuresKept)
            return nil
        }
        return try await kept(body, as: key)
    }

    /// Whether an image is kept under `name` (``file(named:fetch:)``).
    public func isCached(named name: String) async throws -> Bool {
        try await loadedIndex { $0[Self.name(for: "named:" + name)] != nil }
    }

    /// The file kept under `key`, marked as used now.
    private func stored(_ key: String) async throws -> Stored? {
        guard let kept = try await loadedIndex({ index -> String? in
            index[key]?.used = now()
            return index[key]?.file
        }) else { return nil }
        return Stored(path: directory + "/" + kept, contentType: ImageKind(fileName: kept).contentType)
    }

    /// Keeps `body` under `key` when it is an image this cache keeps (told by its bytes, an SVG written again).
    private func kept(_ body: [UInt8], as key: String) async throws -> Stored? {
        let directory = self.directory
        // Told by its bytes (an SVG parsed and written again) and written, on the disk lane: never on the pages' threads.
        guard let (kind, size) = try await onDisk({ () throws -> (ImageKind, Int)? in
            guard let (kind, image) = ImageKind.kept(body) else { return nil }
            let path = directory + "/" + key + "." + kind.fileExtension
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Written whole under another name, then moved: a reader never sees half an image.
            let partial = path + ".\(UUID().uuidString).part"
            try Data(image).write(to: URL(fileURLWithPath: partial))
            if rename(partial, path) != 0 { throw CocoaError(.fileWriteUnknown) }
            return (kind, image.count)
        }) else {
            remember(key, in: failedUntil, for: pause * 12, most: Self.mostFailuresKept)
            return nil
        }
        let file = key + "." + kind.fileExtension
        try await added(key, Entry(file: file, bytes: size, used: now()))
        return Stored(path: directory + "/" + file, contentType: kind.contentType)
    }

    /// The status and the body (nil past `largest` bytes) of `url`.
    private static func fetch(_ url: URL, through transport: any HTTPTransport, largest: Int) async throws -> (status: Int, body: [UInt8]?) {
        let reply = try await transport.get(url, headers: [("Accept", "image/*")])
        return (reply.status, try await reply.body(upTo: largest).map { [UInt8]($0) })
    }

    /// Keeps `key` in `table` until `seconds` from now, the table at most `most` entries (expired ones dropped first).
    private func remember(_ key: String, in table: borrowing Mutex<[String: Date]>, for seconds: TimeInterval, most: Int) {
        table.withLock { entries in
            let instant = now()
            if entries.count >= most { entries = entries.filter { $0.value > instant } }
            if entries.count >= most { entries.removeAll() }
            entries[key] = instant.addingTimeInterval(seconds)
        }
    }

    /// The bytes the cache holds now.
    public func totalBytes() async throws -> Int {
        try await loadedIndex { $0.values.reduce(0) { $0 + $1.bytes } }
    }

    /// Records a new file, then removes the images used longest ago until the cache is within its size.
    private func added(_ key: String, _ entry: Entry) async throws {
        let largestTotal = self.largestTotal
        let evicted: [String] = try await loadedIndex { index in
            index[key] = entry
            var total = index.values.reduce(0) { $0 + $1.bytes }
            var evicted: [String] = []
            for (oldest, old) in index.sorted(by: { $0.value.used < $1.value.used }) where total > largestTotal && oldest != key {
                index[oldest] = nil
                total -= old.bytes
                evicted.append(old.file)
            }
            return evicted
        }
        guard !evicted.isEmpty else { return }
        let directory = self.directory
        try await onDisk {
            for file in evicted { try? FileManager.default.removeItem(atPath: directory + "/" + file) }  // Gone already is as good as removed.
        }
    }

    private func loadedIndex<T: Sendable>(_ body: @Sendable (inout [String: Entry]) -> T) async throws -> T {
        if let answer = index.withLock({ stored -> T? in
            guard var loaded = stored else { return nil }
            defer { stored = loaded }
            return body(&loaded)
        }) { return answer }
        let directory = self.directory
        let scanned = try await onDisk { Self.scan(directory) }
        return index.withLock { stored in
            var loaded = stored ?? scanned
            defer { stored = loaded }
            return body(&loaded)
        }
    }

    /// Runs file-system work on the cache's lane; "busy" when it is full.
    private func onDisk<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await disk.run { Result { try work() } }.get()
        } catch is BlockingLane.Full {
            throw ImageCacheBusy()
        }
    }

    /// What the folder holds, by hash, its files' modification times standing for their last use.
    private static func scan(_ directory: String) -> [String: Entry] {
        var index: [String: Entry] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !name.hasSuffix(".part") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name),
                  let key = name.split(separator: ".").first else { continue }
            index[String(key)] = Entry(file: name, bytes: (attributes[.size] as? NSNumber)?.intValue ?? 0,
                                       used: attributes[.modificationDate] as? Date ?? .distantPast)
        }
        return index
    }

    /// Letters, digits and `/._-~`: what TVmaze's image paths are made of.
    private static let pathBytes: Set<UInt8> = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~".utf8))

    /// A stable name for an address: 64-bit FNV-1a of it, in hex.
    public static func name(for url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// The cache's disk lane is full: try again shortly.
public struct ImageCacheBusy: Error {}

/// The image formats kept, told by their first bytes (never by the address or the host's `Content-Type`).
enum ImageKind: String, CaseIterable {
    case png, jpeg = "jpg", gif, webp, ico, svg

    var fileExtension: String { rawValue }

    var contentType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        }
    }

    /// The kind a kept file's name ends in (JPEG for one from before kinds were named).
    init(fileName: String) {
        self = fileName.split(separator: ".").last.flatMap { ImageKind(rawValue: $0.lowercased()) } ?? .jpeg
    }

    /// The kind `bytes` are and the bytes to keep: a raster image as it came, told by its first bytes; an SVG as
    /// ``SVGSanitizer`` writes it again. nil for anything else (an error page, a script, a document).
    static func kept(_ bytes: [UInt8]) -> (ImageKind, [UInt8])? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return (.png, bytes) }
        if starts([0xFF, 0xD8, 0xFF]) { return (.jpeg, bytes) }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return (.gif, bytes) }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return (.webp, bytes) }
        if starts([0x00, 0x00, 0x01, 0x00]) && bytes.count > 6 { return (.ico, bytes) }
        return SVGSanitizer.clean(bytes).map { (.svg, $0) }
    }
}
