import Foundation
import GuideCore

/// A push service and a browser in one, on loopback, for the tests: Python with PyPI's http-ece (an independent
/// implementation of RFC 8188/8291) and cryptography, in the virtual environment scripts/test makes. It holds a
/// subscription's keys (a P-256 key pair and an auth secret), checks each request's VAPID signature (RFC 8292) and
/// decrypts its body. `/gone` answers 410, as a push service does for an expired subscription; anything else 201.
public final class PushReceiver: Sendable {
    public struct Message: Sendable, Equatable {
        public var path: String
        /// The decrypted payload.
        public var payload: String
        /// Whether the VAPID JWT's ES256 signature checks out against the key the request names.
        public var vapidValid: Bool
        public var audience: String
        public var subject: String
        /// The key the request was signed with (base64url).
        public var vapidKey: String
        public var headers: [String: String]
    }

    public let port: Int
    /// The subscription's keys, base64url, as a browser's `PushSubscription.toJSON()` gives them.
    public let p256dh: String
    public let auth: String
    /// Its self-signed certificate (PEM), for the sender to trust (`outbound-ca`): push services are https only.
    public let certificate: String
    private let folder: URL
    private let process: RunningProgram

    /// The Python with http-ece: `$TVGUIDE_TEST_PUSH_PYTHON`, else scripts/test's `.build/fuzz-venv`.
    static var python: String {
        ProcessInfo.processInfo.environment["TVGUIDE_TEST_PUSH_PYTHON"] ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/fuzz-venv/bin/python").path
    }

    public static func isAvailable() async -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? await Program.run(python, arguments: ["-c", "import http_ece, cryptography"]))?.status == 0
    }

    public init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = RunningProgram(Self.python, arguments: [Self.peers.appendingPathComponent("push_receiver.py").path, folder.path],
                                     keepsInput: true, errors: true)
        let line = await process.firstOutput()
        guard let started = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let port = started["port"] as? Int, let p256dh = started["p256dh"] as? String, let auth = started["auth"] as? String,
              let certificate = started["certificate"] as? String else {
            process.end()
            throw ICalendarPeer.PythonFailed(message: "the push receiver did not start: \(line)")
        }
        (self.folder, self.process, self.port, self.p256dh, self.auth) = (folder, process, port, p256dh, auth)
        self.certificate = certificate
    }

    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// Every request received so far, in order.
    public var messages: [Message] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return files.compactMap { name in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                  let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
            return Message(path: json["path"] as? String ?? "", payload: json["payload"] as? String ?? "",
                           vapidValid: json["vapidValid"] as? Bool ?? false, audience: json["aud"] as? String ?? "",
                           subject: json["sub"] as? String ?? "", vapidKey: json["k"] as? String ?? "",
                           headers: json["headers"] as? [String: String] ?? [:])
        }
    }

    public func stop() {
        process.end()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Tests/Peers, where the Python side lives.
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Peers")
}
