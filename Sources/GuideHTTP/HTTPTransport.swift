import AsyncHTTPClient
import Foundation
import GuideCore
import NIOCore
import NIOHTTP1

/// What tvguide needs from HTTP: a request whose reply's body arrives as it is read (a GET for feeds, TVmaze and
/// images; a POST for reminders). AsyncHTTPClient behind it in the product; the protocol keeps the rest free of it.
public protocol HTTPTransport: Sendable {
    /// Sends `method` to `url` with `headers` and `body`; the reply's body is read through ``HTTPReply/next()``. A
    /// redirect is followed (``RedirectHop``) or, with `redirects` `.answer`, is the reply (``JSONCall`` follows its own).
    func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, redirects: Redirects) async throws -> HTTPReply
}

/// Whether a transport follows a redirect or hands it back as the answer.
public enum Redirects: Sendable {
    case follow, answer
}

extension HTTPTransport {
    /// Sends `method` to `url`, following redirects.
    public func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?) async throws -> HTTPReply {
        try await send(method, url, headers: headers, body: body, redirects: .follow)
    }

    /// Sends a GET with `headers`.
    public func get(_ url: URL, headers: [(String, String)]) async throws -> HTTPReply {
        try await send("GET", url, headers: headers, body: nil)
    }
}

/// A response whose body has not been read yet.
public struct HTTPReply: Sendable {
    public var status: Int
    /// Header values by lower-case name (the first of repeated ones).
    public var headers: [String: String]
    private let body: BodyReader

    public init(status: Int, headers: [String: String], next: @escaping @Sendable () async throws -> ByteBuffer?) {
        self.status = status
        self.headers = headers
        body = BodyReader(next: next)
    }

    /// The next part of the body; nil at its end.
    public func next() async throws -> ByteBuffer? { try await body.next() }

    /// The whole body; nil when it is (or says it is) larger than `largest` bytes, reading stopped there.
    /// An answer sent with `Content-Encoding: gzip` or `deflate` is inflated as it comes, within `largest` and
    /// ``InflationLimit/realRatio`` times what was sent (nil past either).
    public func body(upTo largest: Int) async throws -> Data? {
        if let length = contentLength, length > Int64(largest) { return nil }
        let encoding = headers["content-encoding"]?.lowercased().trimmingCharacters(in: .whitespaces) ?? "identity"
        let inflater = ["gzip", "x-gzip", "deflate"].contains(encoding) ? try GzipInflater(eitherHeader: true, limit: InflationLimit(total: largest)) : nil
        var data = Data()
        while let part = try await next() {
            guard let inflater else {
                guard data.count + part.readableBytes <= largest else { return nil }
                data.append(contentsOf: part.readableBytesView)
                continue
            }
            do {
                try part.readableBytesView.withUnsafeBytes { raw in try inflater.inflate(raw) { data.append(contentsOf: $0) } }
            } catch let failure as GzipInflater.Failure where failure.kind == .tooLarge {
                return nil
            }
        }
        try inflater?.finish()
        return data
    }

    /// The declared body length, when the server sent one.
    public var contentLength: Int64? { headers["content-length"].flatMap { Bounded.integer($0, in: 0...Int64.max) } }

    private final class BodyReader: Sendable {
        let next: @Sendable () async throws -> ByteBuffer?
        init(next: @escaping @Sendable () async throws -> ByteBuffer?) { self.next = next }
    }
}

/// Runs `body` with a transport of its own, shut down when `body` is done: how a command or the server gets one.
public func withHTTPTransport<T>(connectTimeout: TimeAmount = .seconds(15), readTimeout: TimeAmount = .seconds(60),
                                 _ body: (AsyncHTTPTransport) async throws -> T) async throws -> T {
    let transport = AsyncHTTPTransport(connectTimeout: connectTimeout, readTimeout: readTimeout)
    do {
        let result = try await body(transport)
        try await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()   // The body's failure is the one to report.
        throw error
    }
}

/// ``HTTPTransport`` over AsyncHTTPClient: redirects followed up to 5 times (a cycle is an error), no other
/// schemes than http and https, a connect timeout and a read timeout that catches a server that stops sending.
public final class AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient
    /// The same, answering a redirect rather than following it (AsyncHTTPClient's rule is its client's).
    private let answeringClient: HTTPClient

    public init(connectTimeout: TimeAmount = .seconds(15), readTimeout: TimeAmount = .seconds(60)) {
        func made(_ redirects: HTTPClient.Configuration.RedirectConfiguration) -> HTTPClient {
            var configuration = HTTPClient.Configuration(redirectConfiguration: redirects)
            configuration.timeout = HTTPClient.Configuration.Timeout(connect: connectTimeout, read: readTimeout)
            // Feeds are fetched as they are: a gzip file stays gzip and the reader unpacks it, streaming.
            configuration.decompression = .disabled
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
        client = made(.follow(max: RedirectHop.most, allowCycles: false))
        answeringClient = made(.disallow)
    }

    /// Closes the clients' connections; call once when done.
    public func shutdown() async throws {
        try await client.shutdown()
        try await answeringClient.shutdown()
    }

    public func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, redirects: Redirects) async throws -> HTTPReply {
        let client = redirects == .follow ? client : answeringClient
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.add(headers)
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        // The deadline covers the connection and the response head; the body is bounded by the read timeout and
        // by the refresher's own size and time limits.
        let response = try await client.execute(request, timeout: .minutes(2))
        var values: [String: String] = [:]
        for header in response.headers where values[header.name.lowercased()] == nil {
            values[header.name.lowercased()] = header.value
        }
        let iterator = BodyIterator(response.body.makeAsyncIterator())
        return HTTPReply(status: Int(response.status.code), headers: values) { try await iterator.next() }
    }

    /// Holds the body's iterator for the reply's closure; only the refresh reading the body calls it.
    private final class BodyIterator: @unchecked Sendable {
        private var iterator: HTTPClientResponse.Body.AsyncIterator
        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }
        func next() async throws -> ByteBuffer? { try await iterator.next() }
    }
}

/// What `body` returns, or nil when it has not finished within `limit` (it is then cancelled): how a call to another
/// server is kept from holding a page or a background round for long.
public func withTimeLimit<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

extension HTTPClientRequest {
    /// Adds `headers`, and tvguide's User-Agent (its name and version) unless they name one.
    mutating func add(_ headers: [(String, String)]) {
        for (name, value) in headers { self.headers.add(name: name, value: value) }
        if !self.headers.contains(name: "User-Agent") { self.headers.add(name: "User-Agent", value: "tvguide/\(TVGuideVersion.number)") }
    }
}
