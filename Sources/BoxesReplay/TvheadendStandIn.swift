import Crypto
import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// A stand-in for a Tvheadend server's XMLTV export on loopback: `/xmltv/channels` answers a real XMLTV file
/// (Fixtures/boxes/tvheadend) to a request signed in with HTTP Digest (MD5, `qop="auth"`, realm `tvheadend`) as the
/// account `user`/`password`, and a challenge (401 with `WWW-Authenticate`) to anything else. Its check of a digest is
/// written from RFC 7616 here, apart from the client's.
public final class TvheadendStandIn: Sendable {
    public static let fixtures = Bundle.module.url(forResource: "boxes", withExtension: nil)!.appendingPathComponent("tvheadend")
    public static let realm = "tvheadend"

    let receiver: Receiver
    let username: String
    let password: String
    /// Each challenge's nonce (SYNTHETIC), so an answer to an old one is refused.
    private let nonces = NIOLockedValueBox<[String]>([])
    /// The recorder's state (TvheadendStandIn+DVR.swift).
    let recorder = NIOLockedValueBox(DVRState())

    public init(username: String = "tvguide", password: String = "hunter2 & more") async throws {
        receiver = try await Receiver()
        (self.username, self.password) = (username, password)
        receiver.respond("/xmltv/channels") { [unowned self] request in answer(request) }
        receiver.respond("/api/") { [unowned self] request in challenge(request) ?? dvr(request) }
    }

    public func stop() async throws { try await receiver.stop() }

    /// The export's address, as the Tvheadend preset writes it for a server at 127.0.0.1 on the stand-in's port.
    public var port: Int { receiver.port }
    public var requests: [Receiver.Request] { receiver.requests }

    /// A challenge (401) unless `request` answers one for the account.
    func challenge(_ request: Receiver.Request) -> Receiver.Answer? {
        if let authorization = request.headers["authorization"],
           accepts(authorization, method: request.method, uri: request.path + (request.query.isEmpty ? "" : "?" + request.query)) {
            return nil
        }
        let nonce = "SYNTHETIC" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        nonces.withLockedValue { $0.append(nonce) }
        return Receiver.Answer(status: 401, body: "<html><body>401 Unauthorized</body></html>", contentType: "text/html",
                               headers: [("WWW-Authenticate", "Digest realm=\"\(Self.realm)\", qop=\"auth\", algorithm=MD5, nonce=\"\(nonce)\", opaque=\"SYNTHETICopaque\"")])
    }

    private func answer(_ request: Receiver.Request) -> Receiver.Answer {
        if let challenge = challenge(request) { return challenge }
        let body = (try? String(contentsOf: Self.fixtures.appendingPathComponent("export-body.xml"), encoding: .utf8)) ?? ""
        return Receiver.Answer(body: body, contentType: "text/xml; charset=UTF-8")
    }

    /// Whether `authorization` is a Digest answer for this account to one of the challenges sent.
    private func accepts(_ authorization: String, method: String, uri: String) -> Bool {
        guard authorization.hasPrefix("Digest ") else { return false }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst(7).split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            fields[pair[0]] = pair[1].hasPrefix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
        }
        func md5(_ text: String) -> String { Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        guard fields["username"] == username, fields["realm"] == Self.realm, fields["uri"] == uri, fields["qop"] == "auth",
              let nonce = fields["nonce"], nonces.withLockedValue({ $0.contains(nonce) }),
              let count = fields["nc"], let clientNonce = fields["cnonce"], let response = fields["response"] else { return false }
        let expected = md5([md5("\(username):\(Self.realm):\(password)"), nonce, count, clientNonce, "auth", md5("\(method):\(uri)")].joined(separator: ":"))
        return response == expected
    }
}
