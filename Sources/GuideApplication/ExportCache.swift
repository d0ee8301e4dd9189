import Foundation
import GuideCore
import GuideStore

/// The export files: for each kind, those of one version of the listings (older versions are removed once a newer
/// one is made), each in at most ``variantsPerVersion`` variants (the address logos are named under, which follows
/// the request's `Host` when no `--public-url` is set). Concurrent requests for one file wait for the one making it.
public actor ExportCache {
    public let store: any ListingStore
    public let directory: String
    private var pending: [String: Task<String, any Error>] = [:]
    /// Past this many variants of one version, a request is given one already made (its logos named under another
    /// address) rather than the whole guide written again: a client sending a new `Host` each time cannot keep a core
    /// busy writing exports or fill the disk with them. Two or three media servers reaching the guide by different
    /// addresses fit.
    public static let variantsPerVersion = 4

    public init(store: any ListingStore, directory: String) {
        self.store = store
        self.directory = directory
    }

    /// The file `kind-version-variant.ending`, made by `make` (given the path to write) unless it exists or this
    /// version already has ``variantsPerVersion`` variants; once made, the other versions of `kind` are removed.
    public func file(kind: String, version: String, variant: String, ending: String,
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
