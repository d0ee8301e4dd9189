import Foundation
import GuideCore
import Logging

/// One call to a JSON service, the one way tvguide makes one: a method on an http(s) address with headers and a body
/// (JSON or a form); the answer read within ``largest`` bytes and the whole call, answer included, within ``deadline``;
/// a user name and password answered to the service's challenge only (``HTTPCredentials``), never sent unasked; where
/// it may connect decided by the transport's outbound policy. Redirects are followed here (``RedirectHop``): a hop to
/// another origin goes without the call's keys, tokens and challenge answers, and is logged for the admin. Every way it
/// can fail is one ``Failure``, which each client words once in its own error.
public struct JSONCall: Sendable {
    /// What the call sends.
    public enum Body: Sendable {
        case none
        case json(Data)
        /// Sent as `application/x-www-form-urlencoded`.
        case form([(String, String)])
        /// Bytes of another type (an encrypted push message).
        case bytes(Data, type: String)
    }

    /// An answer, whatever its status.
    public struct Answer: Sendable {
        public let status: Int
        /// Header values by lower-case name (the first of repeated ones).
        public let headers: [String: String]
        public let body: Data
    }

    /// How a call failed.
    public enum Failure: Error {
        /// Not an http or https address.
        case notAnAddress
        /// The outbound policy does not let the server connect there.
        case refused(OutboundRefusal)
        /// The service asked for a kind of authentication tvguide does not answer.
        case challenge(UnanswerableChallenge)
        /// No answer: the connection failed, or broke off.
        case unreachable(any Error)
        /// The answer is longer than ``JSONCall/largest`` bytes.
        case tooLarge(limit: Int)
        /// No whole answer within ``JSONCall/deadline``.
        case timedOut(Duration)
        /// An answer other than 2xx, with the start of what it said.
        case status(Int, answer: String)
        /// A 2xx answer that is not the JSON the service documents.
        case undecodable(any Error)
    }

    static let logger = Logger(label: "tvguide.outbound")

    public let transport: any HTTPTransport
    public var credentials: HTTPCredentials?
    /// Headers every call carries (an API key's).
    public var headers: [(String, String)]
    public var largest: Int
    /// Whether an answer longer than ``largest`` is cut there (its status is what counts: a reminder's receiver)
    /// rather than ``Failure/tooLarge(limit:)``.
    public var cutsLongAnswers = false
    public var deadline: Duration

    public init(transport: any HTTPTransport, credentials: HTTPCredentials? = nil, headers: [(String, String)] = [],
                largest: Int, deadline: Duration) {
        (self.transport, self.credentials, self.headers, self.largest, self.deadline) = (transport, credentials, headers, largest, deadline)
    }

    /// `method` on `address` with `body`: a 2xx answer's body.
    public func send(_ method: String, _ address: String, headers: [(String, String)] = [], body: Body = .none) async throws(Failure) -> Data {
        let answer = try await exchange(method, address, headers: headers, body: body)
        guard (200...299).contains(answer.status) else {
            throw .status(answer.status, answer: String(decoding: answer.body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return answer.body
    }

    /// `method` on `address` with `body` and `headers` besides the call's: the answer, whatever its status, for a
    /// service that says more than its status (Schedules Direct's codes, TVmaze's `Retry-After`).
    public func exchange(_ method: String, _ address: String, headers extra: [(String, String)] = [], body: Body = .none) async throws(Failure) -> Answer {
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { throw .notAnAddress }
        let (headers, payload) = prepared(body, extra)
        let (transport, credentials, largest, cuts, deadline) = (self.transport, self.credentials, self.largest, cutsLongAnswers, self.deadline)
        let answer: Answer?
        do {
            answer = try await withTimeLimit(deadline) {
                var (url, headers, credentials) = (url, headers, credentials)
                for _ in 0...RedirectHop.most {
                    let reply = try await transport.send(method, url, headers: headers, body: payload, answering: credentials, redirects: .answer)
                    guard let next = RedirectHop.next(from: url, method: method, reply: reply) else {
                        return Answer(status: reply.status, headers: reply.headers, body: try await Self.read(reply, upTo: largest, cutting: cuts))
                    }
                    _ = try? await reply.body(upTo: 64 << 10)  // A redirect's words are not read; a failure to read them changes nothing.
                    let hop = RedirectHop.headers(headers, from: url, to: next)
                    if RedirectHop.origin(of: next) != RedirectHop.origin(of: url) {
                        if !hop.dropped.isEmpty || credentials != nil {
                            Self.logger.warning("\(RedirectHop.origin(of: url)) redirected to another origin, \(RedirectHop.origin(of: next)): followed without \((hop.dropped + (credentials == nil ? [] : ["its user and password"])).joined(separator: ", "))")
                        }
                        credentials = nil
                    }
                    (url, headers) = (next, hop.kept)
                }
                throw OutboundRefusal(url: url, reason: "more than \(RedirectHop.most) redirects")
            }
        } catch let failure as Failure {
            throw failure
        } catch let refusal as OutboundRefusal {
            throw .refused(refusal)
        } catch let challenge as UnanswerableChallenge {
            throw .challenge(challenge)
        } catch {
            throw .unreachable(error)
        }
        guard let answer else { throw .timedOut(deadline) }
        return answer
    }

    /// The reply's body within `largest` bytes: cut there, or ``Failure/tooLarge(limit:)``.
    private static func read(_ reply: HTTPReply, upTo largest: Int, cutting: Bool) async throws -> Data {
        guard cutting else {
            guard let data = try await reply.body(upTo: largest) else { throw Failure.tooLarge(limit: largest) }
            return data
        }
        var data = Data()
        while data.count < largest, let part = try await reply.next() { data.append(contentsOf: part.readableBytesView.prefix(largest - data.count)) }
        return data
    }

    /// The headers and bytes `body` is sent with.
    private func prepared(_ body: Body, _ extra: [(String, String)]) -> (headers: [(String, String)], payload: Data?) {
        var headers = self.headers + extra
        for (name, value) in [("Accept", "application/json"), ("User-Agent", "tvguide/\(TVGuideVersion.number)")]
        where !headers.contains(where: { $0.0.lowercased() == name.lowercased() }) {
            headers.append((name, value))
        }
        switch body {
        case .none: return (headers, nil)
        case .json(let data): return (headers + [("Content-Type", "application/json")], data)
        case .form(let fields): return (headers + [("Content-Type", "application/x-www-form-urlencoded")], Data(Self.encoded(fields).utf8))
        case .bytes(let data, let type): return (headers + [("Content-Type", type)], data)
        }
    }

    /// ``send(_:_:body:)``, its answer decoded as `T`.
    public func decode<T: Decodable>(_ type: T.Type, _ method: String, _ address: String, headers: [(String, String)] = [],
                                     body: Body = .none) async throws(Failure) -> T {
        let data = try await send(method, address, headers: headers, body: body)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .undecodable(error)
        }
    }

    /// Fields as `application/x-www-form-urlencoded`.
    public static func encoded(_ fields: [(String, String)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return fields.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
