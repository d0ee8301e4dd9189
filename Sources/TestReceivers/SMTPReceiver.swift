import Foundation

/// A real SMTP server on loopback for the tests: Python's aiosmtpd (Debian's python3-aiosmtpd, which scripts/test
/// installs), requiring STARTTLS with a certificate made for it by openssl, and AUTH PLAIN as `sam` / `pw`. Each
/// message it accepts is read back through Python's email parser (subject and body decoded).
public final class SMTPReceiver: Sendable {
    public struct Message: Sendable, Equatable {
        public var from: String
        public var to: [String]
        public var subject: String
        public var body: String
        public var messageID: String
        /// Whether it came over TLS, and who signed in.
        public var overTLS: Bool
        public var login: String
    }

    public let port: Int
    /// The certificate's PEM, for the client to trust.
    public let certificate: String
    private let folder: URL
    private let process: RunningProgram

    /// Whether python3 with aiosmtpd and openssl are here.
    public static func isAvailable() async -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
        else { return false }
        return (try? await ICalendarPeer.python("import aiosmtpd")) != nil
    }

    public init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-smtp-\(UUID().uuidString)")
        let mail = folder.appendingPathComponent("mail")
        try FileManager.default.createDirectory(at: mail, withIntermediateDirectories: true)
        _ = try await Program.run("/usr/bin/openssl", arguments: [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.appendingPathComponent("key.pem").path,
            "-out", folder.appendingPathComponent("cert.pem").path,
        ])
        let process = RunningProgram("/usr/bin/python3", arguments: [
            Self.peers.appendingPathComponent("smtp_receiver.py").path, mail.path, folder.appendingPathComponent("cert.pem").path,
            folder.appendingPathComponent("key.pem").path,
        ], keepsInput: true, errors: true)
        let line = await process.firstOutput()
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.end()
            throw ICalendarPeer.PythonFailed(message: "the SMTP receiver did not start: \(line)")
        }
        (self.folder, self.process, self.port) = (folder, process, port)
        certificate = try String(contentsOf: folder.appendingPathComponent("cert.pem"), encoding: .utf8)
    }

    /// Every message accepted so far, in order.
    public var messages: [Message] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("mail").path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        return files.compactMap { name in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("mail").appendingPathComponent(name)),
                  let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
            return Message(from: json["from"] as? String ?? "", to: json["to"] as? [String] ?? [], subject: json["subject"] as? String ?? "",
                           body: json["body"] as? String ?? "", messageID: json["messageID"] as? String ?? "",
                           overTLS: json["tls"] as? Bool ?? false, login: json["login"] as? String ?? "")
        }
    }

    public func stop() {
        process.end()   // The receiver stops when its input ends.
        try? FileManager.default.removeItem(at: folder)
    }

    /// Tests/Peers, where the Python side lives.
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Peers")
}
