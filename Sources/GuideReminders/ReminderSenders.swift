import Crypto
import Foundation
import GuideCore
import GuideHTTP
import GuideStore

/// Why a message did not reach a channel: in words for the viewer's delivery log (`description`), and in full for the
/// server's log (`detail`). An HTTP receiver's failure is told to the viewer only as "refused by this server's
/// outbound rules" or "could not be delivered": which port is closed, what answers there and with which status is the
/// admin's to read, or the test button would be a port scanner.
public struct DeliveryFailure: WordedError, CustomStringConvertible, Equatable {
    /// What the viewer is told, worded in their language where it is shown.
    public var sentence: Sentence
    /// What happened, for the admin (the server's log), in English; the sentence when there is nothing more to say.
    public var detail: String
    /// Whether trying again cannot help (the channel is set up wrong, or the receiver said it is gone).
    public var isPermanent: Bool
    /// The receiver said the address is gone for good (404, 410): a push subscription is removed.
    public var isGone: Bool

    public init(_ sentence: Sentence, detail: String? = nil, isPermanent: Bool = false, isGone: Bool = false) {
        (self.sentence, self.detail, self.isPermanent, self.isGone) = (sentence, detail ?? sentence.description, isPermanent || isGone, isGone)
    }

    /// In English: the logs, the JSON API.
    public var description: String { sentence.description }

    /// What a viewer is told when an allowed receiver was not reached or did not take the message.
    public static let undelivered = Sentence(saying: "could not be delivered")
}

/// Sends messages to each kind of channel: HTTP ones (ntfy, webhooks, Web Push) through the outbound policy (their
/// addresses are a viewer's), e-mail through its SMTP server when one is set up.
public struct ReminderSenders: Sendable {
    public let transport: PolicedTransport
    public let mail: SMTPClient?
    /// The key browsers' push services know this server by.
    public let push: VAPIDKey?
    /// How long a send may take before it counts as failed: connecting, the answer's head and the part of its body
    /// that is read, together.
    public let timeout: Duration

    public init(transport: PolicedTransport, mail: SMTPClient? = nil, push: VAPIDKey? = nil, timeout: Duration = .seconds(20)) {
        (self.transport, self.mail, self.push, self.timeout) = (transport, mail, push, timeout)
    }

    /// The kinds this server can send to: e-mail only with an SMTP server, push only with a VAPID key.
    public var kinds: [NewDeliveryChannel.Kind] {
        [.ntfy, .webhook] + (mail == nil ? [] : [.email]) + (push == nil ? [] : [.webPush])
    }

    /// Sends `message` to `channel`; a ``DeliveryFailure`` when it did not arrive.
    public func send(_ message: ReminderMessage, to channel: DeliveryChannel, at instant: Date) async throws {
        switch channel.what.kind {
        case .ntfy: try await ntfy(message, channel)
        case .webhook: try await webhook(message, channel, at: instant)
        case .email: try await email(message, channel, at: instant)
        case .webPush: try await webPush(message, channel, at: instant)
        }
    }

    /// Web Push: the message as JSON (`title`, `body`, `link`, `id`), encrypted for the subscription, with a VAPID
    /// signature, a TTL of an hour, high urgency, and a Topic so a push service keeps only the latest of repeats.
    private func webPush(_ message: ReminderMessage, _ channel: DeliveryChannel, at instant: Date) async throws {
        guard let push else { throw DeliveryFailure(Sentence(saying: "this server has no push key"), isPermanent: true) }
        guard let subscription = WebPush.Subscription(endpoint: channel.what.target, keysJSON: channel.what.secret),
              subscription.problem == nil, let url = URL(string: subscription.endpoint) else {
            throw DeliveryFailure(Sentence(saying: "the browser's subscription cannot be used"), isPermanent: true)
        }
        var payload: [String: String] = ["title": String(message.title.prefix(200)), "body": String(message.body.prefix(1000)),
                                         "id": message.id]
        if let link = message.link { payload["link"] = link }
        let body: Data
        let authorization: String
        do {
            body = try WebPush.encrypt(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]), for: subscription)
            authorization = try WebPush.authorization(for: subscription.endpoint, key: try await push.key(), subject: push.subject, at: instant)
        } catch let failure as DeliveryFailure {
            throw failure
        } catch {
            throw DeliveryFailure(Sentence(saying: "the push message could not be made: {error}", sentences: ["error": Sentence(error)]), isPermanent: true)
        }
        let topic = String(WebPush.base64URL(Data(message.id.utf8)).suffix(32))
        try await post(url, type: "application/octet-stream", headers: [("Content-Encoding", "aes128gcm"), ("TTL", "3600"),
                                      ("Urgency", "high"), ("Topic", topic), ("Authorization", authorization)],
                       body: body, what: "the push service")
    }

    /// E-mail: the message as a plain-text mail whose Message-ID names it.
    private func email(_ message: ReminderMessage, _ channel: DeliveryChannel, at instant: Date) async throws {
        guard let mail else { throw DeliveryFailure(Sentence(saying: "this server has no SMTP server set up (serve --smtp)"), isPermanent: true) }
        let text = message.body + (message.link.map { "\n\n" + $0 } ?? "") + "\n\n-- \ntvguide"
        let id = message.id + "@" + (mail.settings.from.split(separator: "@").last.map(String.init) ?? "tvguide")
        do {
            try await withDeadline(mail.settings.timeout) {
                try await mail.send(SMTPMessage(to: channel.what.target, subject: message.title, body: text, id: id), at: instant)
            }
        } catch let failure as SMTPFailure {
            throw DeliveryFailure(failure.sentence, isPermanent: failure.isPermanent)
        } catch let failure as DeliveryFailure {
            throw failure
        } catch {
            throw DeliveryFailure(Sentence(saying: "the mail server could not be reached: {error}", sentences: ["error": Sentence(error)]))
        }
    }

    /// Why `target` (and `secret`) cannot work for `kind`; nil when they can. Checked when a channel is added.
    public func problem(kind: NewDeliveryChannel.Kind, target: String, secret: String?) -> Sentence? {
        guard kinds.contains(kind) else {
            return kind == .email ? Sentence(saying: "this server has no SMTP server set up for e-mail")
                : Sentence(saying: "this server cannot send to {kind} channels yet", ["kind": kind.rawValue])
        }
        if let secret, secret.count > 512 { return Sentence(saying: "the secret is longer than 512 characters") }
        if kind == .webPush {
            guard let subscription = WebPush.Subscription(endpoint: target, keysJSON: secret) else {
                return Sentence(saying: "a push subscription needs its p256dh and auth keys")
            }
            return subscription.problem
        }
        if kind == .email { return SMTPMessage.isAddress(target) ? nil : Sentence(saying: "{address} is not an e-mail address", ["address": target]) }
        // Anything else is an address the server will connect to: checked again, resolved, when it is added
        // (``outboundProblem(kind:target:)``) and on every send.
        guard target.count <= 2048, let url = URL(string: target), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host?.isEmpty == false else {
            return Sentence(saying: "the address must be an http or https URL")
        }
        if kind == .ntfy, Self.ntfyParts(url) == nil { return Sentence(saying: "an ntfy address names a topic: https://ntfy.sh/your-topic") }
        return nil
    }

    /// ntfy: the JSON form of publishing (UTF-8 titles need no header encoding), to the server's root with the topic
    /// in the body; `Authorization: Bearer` with an access token.
    private func ntfy(_ message: ReminderMessage, _ channel: DeliveryChannel) async throws {
        guard let url = URL(string: channel.what.target), let (server, topic) = Self.ntfyParts(url) else {
            throw DeliveryFailure(Sentence(saying: "the ntfy address {address} names no topic", ["address": channel.what.target]), isPermanent: true)
        }
        var payload: [String: Any] = ["topic": topic, "title": message.title, "message": message.body, "tags": ["tv"]]
        if let link = message.link { payload["click"] = link }
        var headers: [(String, String)] = []
        if let token = channel.what.secret, !token.isEmpty { headers.append(("Authorization", "Bearer " + token)) }
        try await post(server, type: "application/json", headers: headers, body: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
                       what: "the ntfy server")
    }

    /// A topic URL's server root and topic: `https://ntfy.example/alerts` is (`https://ntfy.example/`, `alerts`).
    static func ntfyParts(_ url: URL) -> (server: URL, topic: String)? {
        let parts = url.path.split(separator: "/").map(String.init)
        guard let topic = parts.last, !topic.isEmpty, topic.count <= 64,
              topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.path = "/" + parts.dropLast().map { $0 + "/" }.joined()
        components.query = nil
        guard let server = components.url else { return nil }
        return (server, topic)
    }

    /// A webhook: the message and the reminder as JSON; `X-Tvguide-Signature: sha256=HEX`, an HMAC-SHA256 of the body
    /// with the channel's secret, when it has one; `X-Tvguide-Delivery`, the same for every try of one message.
    private func webhook(_ message: ReminderMessage, _ channel: DeliveryChannel, at instant: Date) async throws {
        guard let url = URL(string: channel.what.target) else {
            throw DeliveryFailure(Sentence(saying: "the webhook address {address} is not a URL", ["address": channel.what.target]), isPermanent: true)
        }
        let body = Self.webhookBody(message, at: instant)
        var headers = [("X-Tvguide-Delivery", message.id)]
        if let secret = channel.what.secret, !secret.isEmpty {
            headers.append(("X-Tvguide-Signature", "sha256=" + Self.signature(of: body, secret: secret)))
        }
        try await post(url, type: "application/json", headers: headers, body: body, what: "the webhook")
    }

    /// The webhook's JSON: `event`, `id`, `title`, `body`, `link`, `sentAt`, and `reminder` (its channel, title,
    /// start, stop and lead) unless it is a test.
    static func webhookBody(_ message: ReminderMessage, at instant: Date) -> Data {
        var payload: [String: Any] = ["event": message.reminder == nil ? "test" : "reminder", "id": message.id, "title": message.title,
                                      "body": message.body, "sentAt": CivilTime.iso8601(instant)]
        if let link = message.link { payload["link"] = link }
        if let reminder = message.reminder {
            let what = reminder.what
            payload["reminder"] = ["id": reminder.id.rawValue, "kind": what.kind.rawValue, "channel": what.channel.rawValue,
                                   "channelName": what.channelName, "title": what.title, "start": CivilTime.iso8601(what.start),
                                   "stop": CivilTime.iso8601(what.stop), "leadMinutes": what.leadMinutes] as [String: Any]
        }
        return (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    /// Lower-case hex HMAC-SHA256 of `body` keyed with `secret`'s UTF-8.
    public static func signature(of body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    /// Why the outbound policy would refuse the address of an HTTP channel of `kind`; nil when it allows it (or when
    /// the name cannot be resolved now: the send will say). Asked when a channel is added.
    public func outboundProblem(kind: NewDeliveryChannel.Kind, target: String) async -> Sentence? {
        guard kind != .email, let url = URL(string: target) else { return nil }
        do {
            _ = try await transport.check(url)
            return nil
        } catch is OutboundRefusal {
            return Sentence(saying: "refused by this server's outbound rules")
        } catch {
            return nil
        }
    }

    /// POSTs `body` of `type` by ``JSONCall`` and reads at most 4 KB of the answer, all within ``timeout``; any 2xx is
    /// delivered. 404 and 410 say the receiver is gone. Redirects are not followed (``PolicedTransport``): one is an
    /// answer that is not 2xx.
    private func post(_ url: URL, type: String, headers: [(String, String)], body: Data, what: String) async throws {
        var call = JSONCall(transport: transport, largest: 4096, deadline: timeout)
        call.cutsLongAnswers = true
        let status: Int
        do {
            status = try await call.exchange("POST", url.absoluteString, headers: headers, body: .bytes(body, type: type)).status
        } catch {
            switch error {
            case .refused(let refusal):
                throw DeliveryFailure(Sentence(saying: "refused by this server's outbound rules"), detail: "\(what) at \(refusal.url): \(refusal.reason)", isPermanent: true)
            case .timedOut(let limit):
                throw DeliveryFailure(DeliveryFailure.undelivered, detail: "\(what): no whole answer within \(limit.components.seconds) s")
            case .unreachable(let cause):
                throw DeliveryFailure(DeliveryFailure.undelivered, detail: "\(what) could not be reached: \(cause)")
            default:
                throw DeliveryFailure(DeliveryFailure.undelivered, detail: "\(what) could not be reached: \(error)")
            }
        }
        guard (200..<300).contains(status) else {
            throw DeliveryFailure(DeliveryFailure.undelivered, detail: "\(what) answered \(status)", isGone: status == 404 || status == 410)
        }
    }

    private func withDeadline<T: Sendable>(_ limit: Duration, what: String = "the receiver",
                                           _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let value = try await withTimeLimit(limit, body) else {
            throw DeliveryFailure(DeliveryFailure.undelivered, detail: "\(what): no whole answer within \(limit.components.seconds) s")
        }
        return value
    }
}
