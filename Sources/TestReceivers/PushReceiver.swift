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
    private let folder: URL
    private let process: Process
    private let input: Pipe

    /// The Python with http-ece: `$TVGUIDE_TEST_PUSH_PYTHON`, else scripts/test's `.build/fuzz-venv`.
    static var python: String {
        ProcessInfo.processInfo.environment["TVGUIDE_TEST_PUSH_PYTHON"] ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/fuzz-venv/bin/python").path
    }

    public static var isAvailable: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import http_ece, cryptography"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    public init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process(), input = Pipe(), output = Pipe()
        let line = try await BlockingWork.run("tvguide.test-push") { () throws -> String in
            process.executableURL = URL(fileURLWithPath: Self.python)
            process.arguments = ["-c", Self.script, folder.path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            return String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        guard let started = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let port = started["port"] as? Int, let p256dh = started["p256dh"] as? String, let auth = started["auth"] as? String else {
            throw ICalendarPeer.PythonFailed(message: "the push receiver did not start: \(line)")
        }
        (self.folder, self.process, self.input, self.port, self.p256dh, self.auth) = (folder, process, input, port, p256dh, auth)
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

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
        try? input.fileHandleForWriting.close()
        process.terminate()
        try? FileManager.default.removeItem(at: folder)
    }

    static let script = """
        import base64, http.server, json, os, sys, threading
        import http_ece
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, utils
        folder = sys.argv[1]
        def b64(data): return base64.urlsafe_b64encode(data).rstrip(b'=').decode()
        def unb64(text): return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))
        key = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
                record = {'path': self.path, 'headers': {k.lower(): v for k, v in self.headers.items()}}
                try:
                    record['payload'] = http_ece.decrypt(body, private_key=key, auth_secret=auth, version='aes128gcm').decode()
                except Exception as error:
                    record['payload'] = 'UNREADABLE: %s' % error
                try:
                    scheme, rest = self.headers['Authorization'].split(' ', 1)
                    parts = dict(part.strip().split('=', 1) for part in rest.split(','))
                    token, vapid = parts['t'], parts['k']
                    header, claims, signature = token.split('.')
                    raw = unb64(signature)
                    der = utils.encode_dss_signature(int.from_bytes(raw[:32], 'big'), int.from_bytes(raw[32:], 'big'))
                    signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(vapid))
                    signer.verify(der, (header + '.' + claims).encode(), ec.ECDSA(hashes.SHA256()))
                    payload = json.loads(unb64(claims))
                    record.update({'vapidValid': scheme == 'vapid', 'aud': payload['aud'], 'sub': payload['sub'], 'k': vapid})
                except Exception as error:
                    record['vapidValid'] = False
                name = os.path.join(folder, '%04d.json' % len([f for f in os.listdir(folder) if f.endswith('.json')]))
                with open(name + '.tmp', 'w') as f: json.dump(record, f)
                os.rename(name + '.tmp', name)
                status = 410 if self.path == '/gone' else 201
                self.send_response(status)
                self.send_header('Content-Length', '0')
                self.end_headers()
            def log_message(self, *arguments): pass
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(json.dumps({'port': server.server_address[1], 'p256dh': b64(public), 'auth': b64(auth)}), flush=True)
        sys.stdin.read()
        server.shutdown()
        """
}
