import Crypto
import Foundation

/// A user name and password a source's server asks for (Tvheadend's XMLTV export): answered to the server's challenge
/// (`WWW-Authenticate`) only, never sent unasked. Digest (RFC 7616: MD5 or SHA-256, `qop=auth`) is preferred; Basic
/// only when the server offers nothing else.
public struct HTTPCredentials: Sendable, Equatable, Codable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        (self.username, self.password) = (username, password)
    }

    /// The `Authorization` value answering `challenge` (a `WWW-Authenticate` value) for `method` on `uri` (the request's
    /// path and query); nil when the challenge is neither Digest nor Basic, or a Digest one tvguide cannot answer.
    public func authorization(answering challenge: String, method: String, uri: String,
                              clientNonce: String = HTTPCredentials.newClientNonce()) -> String? {
        let scheme = challenge.prefix { !$0.isWhitespace }.lowercased()
        if scheme == "basic" {
            return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        }
        guard scheme == "digest" else { return nil }
        let parameters = Self.parameters(String(challenge.dropFirst(scheme.count)))
        guard let realm = parameters["realm"], let nonce = parameters["nonce"] else { return nil }
        let algorithm = parameters["algorithm"] ?? "MD5"
        let hash: (String) -> String
        switch algorithm.uppercased() {
        case "MD5": hash = { Insecure.MD5.hash(data: Data($0.utf8)).map { String(format: "%02x", $0) }.joined() }
        case "SHA-256": hash = { SHA256.hash(data: Data($0.utf8)).map { String(format: "%02x", $0) }.joined() }
        default: return nil
        }
        let offered = (parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let secret = hash("\(username):\(realm):\(password)")
        let request = hash("\(method):\(uri)")
        var fields = [("username", Self.quoted(username)), ("realm", Self.quoted(realm)), ("nonce", Self.quoted(nonce)),
                      ("uri", Self.quoted(uri)), ("algorithm", algorithm)]
        if offered.contains("auth") {
            let count = "00000001"
            fields.append(("response", Self.quoted(hash("\(secret):\(nonce):\(count):\(clientNonce):auth:\(request)"))))
            fields += [("qop", "auth"), ("nc", count), ("cnonce", Self.quoted(clientNonce))]
        } else if offered.isEmpty {
            // RFC 2069's form, for servers that offer no quality of protection.
            fields.append(("response", Self.quoted(hash("\(secret):\(nonce):\(request)"))))
        } else {
            return nil
        }
        if let opaque = parameters["opaque"] { fields.append(("opaque", Self.quoted(opaque))) }
        return "Digest " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
    }

    /// The path and query a request names, as Digest signs it (`/xmltv/channels?x=1`).
    public static func requestTarget(_ url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return (path.isEmpty ? "/" : path) + (url.query(percentEncoded: true).map { "?" + $0 } ?? "")
    }

    /// 16 random bytes as hex.
    public static func newClientNonce() -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A challenge's `name=value` and `name="value"` parameters, names lowercased.
    static func parameters(_ text: String) -> [String: String] {
        var parameters: [String: String] = [:]
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == " " || $0 == "," || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(character); escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { break } else { value.append(character) }
                }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if !name.isEmpty { parameters[name] = value }
        }
        return parameters
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// A server's challenge that tvguide cannot answer (neither Digest it knows nor Basic).
public struct UnanswerableChallenge: Error, CustomStringConvertible {
    public var challenge: String
    public var description: String { "a way of signing in tvguide does not know: \(challenge.prefix(40))" }
}

extension HTTPTransport {
    /// Sends `method` to `url`; when the server challenges (401 with `WWW-Authenticate`) and `credentials` are given,
    /// sends once more answering the challenge. Credentials are never sent unasked; a challenge they cannot answer is
    /// ``UnanswerableChallenge``; any other answer, a second 401 included, is the reply.
    public func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?,
                     answering credentials: HTTPCredentials?, redirects: Redirects = .follow) async throws -> HTTPReply {
        let reply = try await send(method, url, headers: headers, body: body, redirects: redirects)
        guard reply.status == 401, let credentials, let challenge = reply.headers["www-authenticate"] else { return reply }
        _ = try await reply.body(upTo: 64 << 10)
        guard let authorization = credentials.authorization(answering: challenge, method: method, uri: HTTPCredentials.requestTarget(url)) else {
            throw UnanswerableChallenge(challenge: challenge)
        }
        return try await send(method, url, headers: headers + [("Authorization", authorization)], body: body, redirects: redirects)
    }
}
