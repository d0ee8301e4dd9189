import Foundation
import GuideCore

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
    private let process: Process
    private let input: Pipe

    /// Whether python3 with aiosmtpd and openssl are here.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
            && (try? ICalendarPeer.python("import aiosmtpd")) != nil
    }

    public init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-smtp-\(UUID().uuidString)")
        let mail = folder.appendingPathComponent("mail")
        try FileManager.default.createDirectory(at: mail, withIntermediateDirectories: true)
        let process = Process(), input = Pipe(), output = Pipe()
        let started = try await BlockingWork.run("tvguide.test-smtp") { () throws -> (Int, String) in
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                 "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.appendingPathComponent("key.pem").path,
                                 "-out", folder.appendingPathComponent("cert.pem").path]
            openssl.standardError = FileHandle.nullDevice
            openssl.standardOutput = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", Self.script, mail.path, folder.appendingPathComponent("cert.pem").path,
                                 folder.appendingPathComponent("key.pem").path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ICalendarPeer.PythonFailed(message: "the SMTP receiver did not start: \(line)")
            }
            return (port, try String(contentsOf: folder.appendingPathComponent("cert.pem"), encoding: .utf8))
        }
        (self.folder, self.process, self.input, self.port, self.certificate) = (folder, process, input, started.0, started.1)
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
        try? input.fileHandleForWriting.close()   // The receiver stops when its input ends.
        process.terminate()
        try? FileManager.default.removeItem(at: folder)
    }

    static let script = """
        import email, email.header, json, os, socket, ssl, sys
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword
        folder, cert, key = sys.argv[1:4]
        class Handler:
            async def handle_DATA(self, server, session, envelope):
                parsed = email.message_from_bytes(envelope.original_content)
                login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else ''
                record = {'from': envelope.mail_from, 'to': envelope.rcpt_tos,
                          'subject': str(email.header.make_header(email.header.decode_header(parsed['Subject']))),
                          'body': parsed.get_payload(decode=True).decode('utf-8'), 'messageID': parsed['Message-ID'],
                          'tls': session.ssl is not None, 'login': login}
                name = os.path.join(folder, '%04d.json' % len(os.listdir(folder)))
                with open(name + '.tmp', 'w') as f: json.dump(record, f)
                os.rename(name + '.tmp', name)
                return '250 OK'
        def authenticate(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and data.login == b'sam' and data.password == b'pw'
            # handled=False: aiosmtpd then answers a failure with 535 itself.
            return AuthResult(success=ok, handled=False, auth_data=data)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        probe = socket.socket(); probe.bind(('127.0.0.1', 0)); port = probe.getsockname()[1]; probe.close()
        controller = Controller(Handler(), hostname='127.0.0.1', port=port, tls_context=context, require_starttls=True,
                                authenticator=authenticate, auth_require_tls=True, ready_timeout=10)
        controller.start()
        print(port, flush=True)
        sys.stdin.read()
        controller.stop()
        """
}
