import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// A stand-in for an Enigma2 receiver's OpenWebif on loopback, behind HTTP Basic authentication as OpenWebif asks when
/// its authentication is on: `/api/bouquets` and `/api/epgbouquet?bRef=` answer in the shape of OpenWebif's
/// `getBouquets` and `getBouquetEpg` (E2OpenPlugins/e2openplugin-OpenWebif, `plugin/controllers/models/services.py`);
/// the bouquets, channels and events are SYNTHETIC (no receiver's answer could be recorded), with its HTML-escaped
/// texts and its "N/A" placeholder for a channel without events.
public final class OpenWebifStandIn: Sendable {
    static let favourites = "1:7:1:0:0:0:0:0:0:0:FROM BOUQUET \"userbouquet.favourites.tv\" ORDER BY bouquet"
    static let news = "1:7:1:0:0:0:0:0:0:0:FROM BOUQUET \"userbouquet.news.tv\" ORDER BY bouquet"

    let receiver: Receiver
    let username: String
    let password: String
    private let now: @Sendable () -> Date

    public init(username: String = "root", password: String = "dreambox", now: @escaping @Sendable () -> Date) async throws {
        receiver = try await Receiver()
        (self.username, self.password, self.now) = (username, password, now)
        receiver.respond("/api/bouquets") { [unowned self] request in
            authorized(request) ?? Receiver.Answer(json: #"{"bouquets": [["\#(Self.escaped(Self.favourites))", "Favourites (TV)"], ["\#(Self.escaped(Self.news))", "News"]]}"#)
        }
        receiver.respond("/api/epgbouquet") { [unowned self] request in authorized(request) ?? epg(request) }
    }

    public func stop() async throws { try await receiver.stop() }

    public var port: Int { receiver.port }
    public var requests: [Receiver.Request] { receiver.requests }

    private func authorized(_ request: Receiver.Request) -> Receiver.Answer? {
        let expected = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        guard request.headers["authorization"] != expected else { return nil }
        return Receiver.Answer(status: 401, body: "401 Unauthorized", contentType: "text/plain",
                               headers: [("WWW-Authenticate", "Basic realm=\"OpenWebif\"")])
    }

    private func epg(_ request: Receiver.Request) -> Receiver.Answer {
        let reference = request.query.hasPrefix("bRef=") ? (String(request.query.dropFirst(5)).removingPercentEncoding ?? "") : ""
        guard reference == Self.favourites || reference == Self.news else { return Receiver.Answer(json: #"{"events": [], "result": false}"#) }
        let channels = reference == Self.favourites
            ? [("1:0:19:283D:3FB:1:C00000:0:0:0:", "Das Erste HD"), ("1:0:19:2B66:3F3:1:C00000:0:0:0:", "ZDF HD"), ("1:0:19:EF10:421:1:C00000:0:0:0:", "Arte &amp; Kultur")]
            : [("1:0:19:2B98:3F2:1:C00000:0:0:0:", "tagesschau24")]
        let start = Int64(now().timeIntervalSince1970) / 3600 * 3600
        var events: [[String: Any]] = []
        for (reference, name) in channels {
            for hour in 0..<6 {
                events.append(["id": 1000 + hour, "begin_timestamp": start + Int64(hour) * 3600, "duration_sec": 3600,
                               "title": "\(name.replacingOccurrences(of: "&amp;", with: "&amp;")) &quot;Stunde&quot; \(hour)",
                               "shortdesc": hour % 2 == 0 ? "Folge \(hour)" : "", "longdesc": "SYNTHETIC: Sendung \(hour) auf \(name).",
                               "sref": reference, "sname": name, "now_timestamp": start, "genre": hour % 2 == 0 ? "Nachrichten" : "", "genreid": 32])
            }
        }
        // A channel without events: OpenWebif's placeholder.
        events.append(["id": 0, "begin_timestamp": 0, "duration_sec": 0, "title": "N/A", "shortdesc": "", "longdesc": "", "sref": "",
                       "sname": "", "now_timestamp": 0, "genre": "", "genreid": 0])
        let body = (try? JSONSerialization.data(withJSONObject: ["events": events, "result": true], options: [.sortedKeys])) ?? Data()
        return Receiver.Answer(json: String(decoding: body, as: UTF8.self))
    }

    static func escaped(_ text: String) -> String { text.replacingOccurrences(of: "\"", with: "\\\"") }
}
