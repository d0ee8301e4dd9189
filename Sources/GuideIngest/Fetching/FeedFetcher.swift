import AsyncHTTPClient
import Foundation
import GuideCore
import GuideHTTP
import GuideStore
import GuideWebFormats
import NIOCore
import XMLTV

/// Limits and retry rules for downloads.
public struct FetchPolicy: Sendable {
    /// The largest body accepted.
    public var maximumBytes: Int64 = 2 << 30
    /// How long one download may take, retries not counted.
    public var maximumDuration: Duration = .seconds(30 * 60)
    /// Retries after the first try, for timeouts, dropped connections, 429 and 5xx.
    public var retries = 3
    /// The first retry waits about this long, each further one twice as long (with jitter of +/-50%).
    public var backoff: Duration = .seconds(2)
    /// A 429 or 503 asking to wait longer than this fails the download instead.
    public var longestRetryAfter: Duration = .seconds(5 * 60)

    public init() {}
}

/// How one download or file is going, for a progress line.
public struct FeedProgress: Sendable, Equatable {
    public var location: String
    public var bytes: Int64
    /// The size, when the server or file system says it.
    public var totalBytes: Int64?
    public var programmes: Int
    /// The try this is (1 for the first), and why the one before failed.
    public var attempt = 1
    public var retryReason: Sentence?

    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytes) / Double(totalBytes))
    }
}

/// A feed read and checked, ready to import.
struct FetchedFeed: Sendable {
    var location: String
    /// The file to import from: a temporary copy of a download, or the source's own file.
    var path: String
    var isTemporary: Bool
    var bytes: Int64
    var validators: HTTPValidators
    /// The channels the feed describes or names, in order of appearance.
    var channels: [OfferedChannel]
    var programmes: Int
    /// Where its programmes lie, when it is plain XMLTV: a refresh then reads only what changed (``RefreshPlan``).
    var layout: ListingLayout? = nil
    /// What of the file was written, when only what a refresh reads was (``PartialDownload``); nil when it is whole.
    var written: WrittenRanges? = nil

    func discard() {
        if isTemporary { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The paths of those that are temporary copies: an import removes them once read.
    static func temporaryPaths(_ feeds: [FetchedFeed]) -> Set<String> {
        Set(feeds.filter(\.isTemporary).map(\.path))
    }
}

enum FetchResult: Sendable {
    /// The server said the feed has not changed since the validators sent, or it sent the very bytes last imported.
    case notModified
    case fetched(FetchedFeed)
}

/// Gets one feed: downloads a URL to a temporary file (or reads a local file) while surveying it as it arrives
/// (``FeedSurvey``), so a feed that is not listings fails before the store is touched, progress can count programmes,
/// and the channels it offers are known before the import. Retries what is worth retrying.
struct FeedFetcher: Sendable {
    var transport: any HTTPTransport
    var policy: FetchPolicy
    /// How long retries wait and downloads take; tests use one that jumps instead of sleeping.
    var clock: any Clock<Duration>
    /// The guide's wall clock, for a `Retry-After` given as a date.
    var now: @Sendable () -> Date

    /// With `partial` (the groups the last import stored, ``ListingLayout/groups(in:context:)``), a download writes
    /// only what a refresh reading the changed days reads (``PartialDownload``).
    func fetch(_ location: String, validators: HTTPValidators?, localZone: TimeZone?, credentials: HTTPCredentials? = nil,
               partial: [String: ListingLayout.Stored]? = nil,
               progress: @escaping @Sendable (FeedProgress) -> Void) async throws -> FetchResult {
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            let path = location.hasPrefix("file://") ? (URL(string: location)?.path ?? location) : location
            return try await survey(file: path, location: location, previous: validators?.content, localZone: localZone, progress: progress)
        }
        var attempt = 1
        var reason: Sentence?
        while true {
            do {
                return try await download(url, location: location, validators: validators, localZone: localZone,
                                          credentials: credentials, partial: partial, attempt: attempt, reason: reason,
                                          progress: progress)
            } catch let failure as Retryable {
                guard attempt <= policy.retries else { throw IngestError(.download, Self.gaveUp(failure.sentence, after: attempt)) }
                var wait = policy.backoff * Double(1 << (attempt - 1)) * Double.random(in: 0.5...1.5)
                if let asked = failure.retryAfter {
                    guard asked <= policy.longestRetryAfter else {
                        throw IngestError(.download, saying: "{error}; it asked to wait {seconds} s, longer than the {limit} s a refresh waits",
                                          ["seconds": String(asked.components.seconds),
                                           "limit": String(policy.longestRetryAfter.components.seconds)], sentences: ["error": failure.sentence])
                    }
                    wait = max(wait, asked)
                }
                reason = failure.sentence
                progress(FeedProgress(location: location, bytes: 0, totalBytes: nil, programmes: 0, attempt: attempt + 1,
                                      retryReason: reason))
                try await clock.sleep(for: wait)
                attempt += 1
            }
        }
    }

    /// A byte count as people read it: 98 KB, 14 MB.
    static func size(_ bytes: Int64) -> String {
        bytes < 1 << 20 ? "\(Int((Double(bytes) / 1024).rounded())) KB" : "\(Int((Double(bytes) / 1_048_576).rounded())) MB"
    }

    private static func gaveUp(_ failure: Sentence, after attempts: Int) -> Sentence {
        attempts == 1 ? failure : Sentence(saying: "{error} (gave up after {count} tries)", ["count": String(attempts)], sentences: ["error": failure])
    }

    /// A failure a later try may not have.
    private struct Retryable: Error {
        var sentence: Sentence
        var retryAfter: Duration?

        init(saying text: String, _ values: [String: String], retryAfter: Duration? = nil) {
            sentence = Sentence(saying: text, values)
            self.retryAfter = retryAfter
        }
    }

    private func download(_ url: URL, location: String, validators: HTTPValidators?, localZone: TimeZone?,
                          credentials: HTTPCredentials?, partial: [String: ListingLayout.Stored]?, attempt: Int,
                          reason: Sentence?, progress: @escaping @Sendable (FeedProgress) -> Void) async throws -> FetchResult {
        var headers: [(String, String)] = []
        if let etag = validators?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = validators?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let stopwatch = Stopwatch(on: clock)
        var reply: HTTPReply
        do {
            // Credentials answer the server's challenge, once; they are never sent unasked.
            reply = try await transport.send("GET", url, headers: headers, body: nil, answering: credentials)
        } catch let error as UnanswerableChallenge {
            throw IngestError(.download, saying: "{location} asks for {challenge}", ["location": location, "challenge": "\(error)"])
        } catch let error as IngestError {
            throw error
        } catch {
            throw try Self.classify(error, location: location, bytes: nil)
        }
        switch reply.status {
        case 401, 403:
            let values = ["location": location, "status": String(reply.status)]
            throw credentials == nil
                ? IngestError(.download, saying: "{location} answered {status}: it needs a user name and password (the source's page takes them)", values)
                : IngestError(.download, saying: "{location} answered {status}: its user name or password was refused", values)
        case 200: break
        case 304 where validators.map { !$0.isEmpty } ?? false: return .notModified
        case 429, 503, 500...599:
            let values = ["location": location, "status": String(reply.status)]
            let retryAfter = reply.headers["retry-after"].flatMap { HTTPDate.retryAfter($0, now: now()) }
            throw reply.status == 429 ? Retryable(saying: "{location} answered {status} (too many requests)", values, retryAfter: retryAfter)
                                      : Retryable(saying: "{location} answered {status}", values, retryAfter: retryAfter)
        default:
            throw IngestError(.download, saying: "{location} answered {status}; nothing was imported", ["location": location, "status": String(reply.status)])
        }
        let total = reply.contentLength
        if let total, total > policy.maximumBytes {
            throw IngestError(.download, saying: "{location} is {size}, more than the {limit} allowed; not downloaded",
                              ["location": location, "size": Self.size(total), "limit": Self.size(policy.maximumBytes)])
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-feed-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw IngestError(.unreadable, saying: "cannot create a temporary file for {location}", ["location": location])
        }
        var survey = SurveyThread(location: location, localZone: localZone, previous: validators?.content, path: path,
                                  partial: partial)
        var state = FeedProgress(location: location, bytes: 0, totalBytes: total, programmes: 0, attempt: attempt, retryReason: reason)
        let surveyed: SurveyThread.Surveyed
        do {
            defer { try? handle.close() }
            progress(state)
            while true {
                let buffer: ByteBuffer?
                do {
                    buffer = try await reply.next()
                } catch {
                    throw try Self.classify(error, location: location, bytes: state.bytes)
                }
                guard let buffer else { break }
                state.bytes += Int64(buffer.readableBytes)
                if state.bytes > policy.maximumBytes {
                    throw IngestError(.download, saying: "{location} sent more than the {limit} allowed; stopped and discarded",
                                      ["location": location, "limit": Self.size(policy.maximumBytes)])
                }
                if stopwatch.elapsed() > policy.maximumDuration {
                    throw IngestError(.download, saying: "{location} took longer than {seconds} s ({bytes} bytes so far); stopped and discarded",
                                      ["location": location, "seconds": String(policy.maximumDuration.components.seconds),
                                       "bytes": String(state.bytes)])
                }
                if partial == nil { try buffer.withUnsafeReadableBytes { try handle.write(contentsOf: $0) } }
                try await survey.feed(buffer)
                state.programmes = survey.programmes
                progress(state)
            }
            if let total, state.bytes < total {
                throw Retryable(saying: "the connection to {location} broke off at {bytes} of {total} bytes",
                                ["location": location, "bytes": String(state.bytes), "total": String(total)])
            }
            surveyed = try await survey.finish()
        } catch {
            await survey.abandon()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        if surveyed.isSame {
            // The bytes imported last time, again: nothing to parse or import.
            try? FileManager.default.removeItem(atPath: path)
            return .notModified
        }
        state.programmes = surveyed.programmes
        progress(state)
        return .fetched(FetchedFeed(location: location, path: path, isTemporary: true, bytes: state.bytes,
                                    validators: HTTPValidators(etag: reply.headers["etag"], lastModified: reply.headers["last-modified"],
                                                               content: surveyed.content),
                                    channels: surveyed.channels, programmes: surveyed.programmes,
                                    layout: surveyed.layout, written: surveyed.written))
    }

    /// Reads a local file through the same checks as a download; not modified when its bytes are the ones last imported.
    private func survey(file path: String, location: String, previous: String?, localZone: TimeZone?,
                        progress: @escaping @Sendable (FeedProgress) -> Void) async throws -> FetchResult {
        let handle = try LocalFile.open(path)
        defer { try? handle.close() }
        let total = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        var survey = SurveyThread(location: location, localZone: localZone, previous: previous, path: path)
        var state = FeedProgress(location: location, bytes: 0, totalBytes: total, programmes: 0)
        let surveyed: SurveyThread.Surveyed
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try await survey.feed(ByteBuffer(bytes: chunk))
                state.bytes += Int64(chunk.count)
                state.programmes = survey.programmes
                progress(state)
            }
            surveyed = try await survey.finish()
        } catch {
            await survey.abandon()
            throw error
        }
        guard !surveyed.isSame else { return .notModified }
        return .fetched(FetchedFeed(location: location, path: path, isTemporary: false, bytes: state.bytes,
                                    validators: HTTPValidators(etag: nil, lastModified: nil, content: surveyed.content),
                                    channels: surveyed.channels, programmes: surveyed.programmes, layout: surveyed.layout))
    }

    /// Sorts a transport error into worth-retrying (timeouts, refused or dropped connections) or not (redirect
    /// loops, bad URLs, TLS failures).
    private static func classify(_ error: any Error, location: String, bytes: Int64?) throws -> any Error {
        var values = ["location": location, "error": "\(error)"]
        values["bytes"] = bytes.map(String.init)
        if let error = error as? HTTPClientError {
            switch error {
            case .redirectCycleDetected:
                return IngestError(.download, saying: "{location} redirects in a loop; nothing was imported", values)
            case .redirectLimitReached:
                return IngestError(.download, saying: "{location} redirects more than 5 times; nothing was imported", values)
            case .readTimeout:
                return bytes == nil ? Retryable(saying: "{location} stopped sending (read timeout)", values)
                                    : Retryable(saying: "{location} stopped sending after {bytes} bytes (read timeout)", values)
            case .connectTimeout, .deadlineExceeded:
                return Retryable(saying: "{location} did not answer in time", values)
            case .remoteConnectionClosed:
                return bytes == nil ? Retryable(saying: "the connection to {location} broke off", values)
                                    : Retryable(saying: "the connection to {location} broke off after {bytes} bytes", values)
            case .invalidURL, .emptyScheme, .emptyHost:
                return IngestError(.download, saying: "{location} is not a URL tvguide can fetch: {error}", values)
            default:
                return bytes == nil ? Retryable(saying: "the download of {location} failed: {error}", values)
                                    : Retryable(saying: "the download of {location} failed after {bytes} bytes: {error}", values)
            }
        }
        if error is CancellationError { throw error }
        if let error = error as? IngestError { return error }
        // Mid-body, anything else the connection does (an early end, a reset) is a connection breaking off.
        if bytes != nil { return Retryable(saying: "the connection to {location} broke off after {bytes} bytes: {error}", values) }
        return Retryable(saying: "cannot reach {location}: {error}", values)
    }
}
