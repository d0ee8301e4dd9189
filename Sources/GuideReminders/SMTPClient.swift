import Foundation
import GuideCore
import NIOCore
import NIOPosix
import NIOSSL

/// Where e-mail goes out: an SMTP server, reached with STARTTLS (submission, port 587) or TLS from the start (port
/// 465); plain SMTP only to a server on this machine. `serve --smtp smtp://USER@HOST:587 --smtp-from ADDRESS`.
public struct SMTPSettings: Sendable {
    public enum Security: Sendable, Equatable {
        /// Plain, then STARTTLS before anything else is said: refused if the server does not offer it.
        case startTLS
        /// TLS from the first byte (`smtps://`).
        case tls
        /// No TLS: only for a server on loopback (a local relay).
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// The sender, `tvguide@example.org`.
    public var from: String
    /// PEM certificates to trust instead of the system's (a private server's own).
    public var trustedCertificates: String?
    /// How long one message may take, connection to QUIT.
    public var timeout: Duration = .seconds(30)

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil, from: String,
                trustedCertificates: String? = nil) {
        (self.host, self.port, self.security, self.username, self.password) = (host, port, security, username, password)
        (self.from, self.trustedCertificates) = (from, trustedCertificates)
    }

    /// `smtp://[USER@]HOST[:PORT]` (STARTTLS, port 587 by default), `smtps://...` (TLS, 465), or
    /// `smtp+plain://HOST:PORT` for a relay on loopback; nil with why for anything else.
    public static func parse(_ text: String, from: String, password: String?) -> Result<SMTPSettings, SMTPFailure> {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return .failure(SMTPFailure(Sentence(saying: "{address} is not an smtp:// address", ["address": text])))
        }
        let security: Security
        switch scheme {
        case "smtp": security = .startTLS
        case "smtps": security = .tls
        case "smtp+plain":
            guard ["127.0.0.1", "::1", "localhost"].contains(host) else {
                return .failure(SMTPFailure(Sentence(saying: "smtp+plain:// sends passwords and mail in the clear: only to a relay on this machine")))
            }
            security = .none
        default: return .failure(SMTPFailure(Sentence(saying: "{address}: the scheme is smtp, smtps or smtp+plain", ["address": text])))
        }
        guard SMTPMessage.isAddress(from) else { return .failure(SMTPFailure(Sentence(saying: "{address} is not an e-mail address", ["address": from]))) }
        let port = url.port ?? (security == .tls ? 465 : 587)
        guard (1...65_535).contains(port) else { return .failure(SMTPFailure(Sentence(saying: "the port is from 1 to 65535"))) }
        return .success(SMTPSettings(host: host, port: port, security: security, username: url.user?.removingPercentEncoding,
                                     password: password, from: from))
    }
}

public struct SMTPFailure: WordedError, CustomStringConvertible, Equatable {
    public var sentence: Sentence
    /// The server refused for good (5xx): trying again will not help.
    public var isPermanent = false

    public init(_ sentence: Sentence, isPermanent: Bool = false) {
        (self.sentence, self.isPermanent) = (sentence, isPermanent)
    }

    public var description: String { sentence.description }
}

/// One message: a plain-text, UTF-8 e-mail (subject as an RFC 2047 word, body in base64) with a Message-ID that
/// names the reminder, so a repeat is recognisable.
public struct SMTPMessage: Sendable {
    public var to: String
    public var subject: String
    public var body: String
    /// Without the angle brackets: `tvguide-reminder-12-3@tvguide`.
    public var id: String

    public init(to: String, subject: String, body: String, id: String) {
        (self.to, self.subject, self.body, self.id) = (to, subject, body, id)
    }

    /// A plain address: one @, no spaces, angle brackets or line breaks, at most 254 characters.
    public static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return text.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !text.contains(where: { $0.isWhitespace || "<>\"(),;:[]\\".contains($0) || $0.asciiValue.map { $0 < 32 } ?? false })
    }

    /// The DATA section: headers and body, CRLF line ends, dot-stuffed, ending in the lone dot.
    func data(from: String, date: Date) -> String {
        let subjectWord = "=?UTF-8?B?" + Data(subject.utf8).base64EncodedString() + "?="
        let body64 = Data(body.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let lines = ["From: tvguide <\(from)>", "To: <\(to)>", "Subject: " + subjectWord, "Date: " + formatter.string(from: date),
                     "Message-ID: <\(id)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
                     "Content-Transfer-Encoding: base64", "Auto-Submitted: auto-generated", ""] + body64.components(separatedBy: "\r\n")
        return lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n") + "\r\n.\r\n"
    }
}

/// Sends one message per connection over SwiftNIO: EHLO, STARTTLS (or TLS from the start), EHLO again, AUTH PLAIN
/// when there is a user, MAIL FROM, RCPT TO, DATA, QUIT. Every reply is checked; a 5xx is permanent.
public struct SMTPClient: Sendable {
    public let settings: SMTPSettings

    public init(settings: SMTPSettings) {
        self.settings = settings
    }

    public func send(_ message: SMTPMessage, at date: Date) async throws {
        guard SMTPMessage.isAddress(message.to) else { throw SMTPFailure(Sentence(saying: "{address} is not an e-mail address", ["address": message.to]), isPermanent: true) }
        let settings = self.settings
        let tls = try Self.tlsContext(settings)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if settings.security == .tls {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: Self.sniName(settings.host)))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            var replies = Replies(inbound.makeAsyncIterator())
            func say(_ line: String, expect codes: ClosedRange<Int>) async throws {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
                try await replies.expect(codes, after: line.hasPrefix("AUTH") ? "AUTH" : line)
            }
            try await replies.expect(220...220, after: "connecting")
            let name = "tvguide.localdomain"
            try await say("EHLO " + name, expect: 250...250)
            if settings.security == .startTLS {
                guard replies.last.uppercased().contains("STARTTLS") else {
                    throw SMTPFailure(Sentence(saying: "{host} does not offer STARTTLS; tvguide does not send mail in the clear", ["host": settings.host]), isPermanent: true)
                }
                try await say("STARTTLS", expect: 220...220)
                // Added on the channel's own event loop: NIOSSL's handler is not Sendable.
                let pipeline = channel.channel.pipeline, serverName = Self.sniName(settings.host)
                try await channel.channel.eventLoop.submit {
                    try pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName), position: .first)
                }.get()
                try await say("EHLO " + name, expect: 250...250)
            }
            if let user = settings.username {
                let plain = Data(("\0" + user + "\0" + (settings.password ?? "")).utf8).base64EncodedString()
                try await say("AUTH PLAIN " + plain, expect: 235...235)
            }
            try await say("MAIL FROM:<\(settings.from)>", expect: 250...250)
            try await say("RCPT TO:<\(message.to)>", expect: 250...251)
            try await say("DATA", expect: 354...354)
            try await outbound.write(ByteBuffer(string: message.data(from: settings.from, date: date)))
            try await replies.expect(250...250, after: "the message")
            try? await say("QUIT", expect: 221...221)
        }
    }

    /// TLS that checks the server's certificate and name: against the system's roots, or the settings' own.
    static func tlsContext(_ settings: SMTPSettings) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let pem = settings.trustedCertificates {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// SNI takes a host name, not an address.
    static func sniName(_ host: String) -> String? {
        host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : host
    }

    /// The server's replies, line by line: `250-...` continues, `250 ...` ends one.
    struct Replies {
        var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        var pending = ""
        /// The last reply's text, every line.
        var last = ""

        init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
            self.iterator = iterator
        }

        mutating func expect(_ codes: ClosedRange<Int>, after what: String) async throws {
            var lines: [String] = []
            while true {
                while let end = pending.range(of: "\r\n") {
                    let line = String(pending[..<end.lowerBound])
                    pending.removeSubrange(..<end.upperBound)
                    lines.append(line)
                    guard line.count >= 4, line[line.index(line.startIndex, offsetBy: 3)] == "-" else {
                        last = lines.joined(separator: "\n")
                        guard let code = Int(line.prefix(3)) else { throw SMTPFailure(Sentence(saying: "the server answered {command} with {answer}", ["command": what, "answer": line])) }
                        guard codes.contains(code) else {
                            throw SMTPFailure(Sentence(saying: "the server answered {command} with {answer}", ["command": what, "answer": String(line.prefix(200))]),
                                              isPermanent: (500...599).contains(code))
                        }
                        return
                    }
                }
                guard pending.count < 16_384, let part = try await iterator.next() else {
                    throw SMTPFailure(Sentence(saying: "the server closed the connection after {command}", ["command": what]))
                }
                pending += String(buffer: part)
            }
        }
    }
}
