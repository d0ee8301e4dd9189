import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// A stand-in for an HDHomeRun tuner on the network and for Silicondust's guide service, on loopback: `discover.json`
/// and `lineup.json` are the recorded answers of real tuners (Fixtures/boxes/hdhomerun), the guide is SYNTHETIC in the
/// shape its clients read (see Fixtures/PROVENANCE.md). The tuner's `DeviceAuth` rotates when a test says
/// (``rotate()``); the guide refuses any key but the current one (403), as the service refuses an old key.
public final class HDHomeRunStandIn: Sendable {
    public static let fixtures = Bundle.module.url(forResource: "boxes", withExtension: nil)!.appendingPathComponent("hdhomerun")

    let receiver: Receiver
    private let state = NIOLockedValueBox<(key: Int, windowHours: Int, horizonDays: Int, legacy: Bool)>((1, 4, 14, false))
    /// The guide's clock: its windows start from here when a request names no `Start`.
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) async throws {
        receiver = try await Receiver()
        self.now = now
        receiver.respond("/discover.json") { [unowned self] _ in discover() }
        receiver.respond("/lineup.json") { _ in Self.recorded("lineup.json") }
        receiver.respond("/api/guide.php") { [unowned self] request in guide(request) }
    }

    public func stop() async throws { try await receiver.stop() }

    /// The tuner's address (a source's location), and the guide service's (`hdhomerun-guide-url`): one server for both.
    public var device: String { receiver.url("") }
    public var guideBase: String { receiver.url("") }
    public var requests: [Receiver.Request] { receiver.requests }
    public func requests(to path: String) -> [Receiver.Request] { receiver.requests(to: path) }

    /// The key the tuner gives now.
    public var currentKey: String { "SYNTHETICdeviceAuth\(state.withLockedValue { $0.key })xQ" }

    /// The tuner's key changes, as it does on real devices.
    public func rotate() { state.withLockedValue { $0.key += 1 } }

    /// From now on the tuner answers as the recorded one does: legacy firmware, no `DeviceAuth`.
    public func legacyFirmware() { state.withLockedValue { $0.legacy = true } }

    /// Hours per guide window (4 without a DVR subscription; days with one), and how far ahead the guide goes.
    public func window(hours: Int, horizonDays: Int = 14) { state.withLockedValue { $0.windowHours = hours; $0.horizonDays = horizonDays } }

    private func discover() -> Receiver.Answer {
        if state.withLockedValue({ $0.legacy }) { return Self.recorded("discover-HDHR3-US.json") }
        // The recorded legacy tuner, with what current firmware adds (SYNTHETIC: DeviceAuth, LineupURL, no Legacy).
        var body = (try? JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixtures.appendingPathComponent("discover-HDHR3-US.json")))) as? [String: Any] ?? [:]
        body["Legacy"] = nil
        body["DeviceID"] = "1053C0CA"
        body["DeviceAuth"] = currentKey
        body["LineupURL"] = receiver.url("/lineup.json")
        body["BaseURL"] = receiver.url("")
        return Receiver.Answer(json: Self.text(body))
    }

    private func guide(_ request: Receiver.Request) -> Receiver.Answer {
        let query = Dictionary(request.query.split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : "")
        }, uniquingKeysWith: { $1 })
        guard query["DeviceAuth"] == currentKey else {
            return Receiver.Answer(status: 403, json: #"{"Error":"SYNTHETIC: DeviceAuth not valid"}"#)
        }
        let (hours, horizon) = state.withLockedValue { ($0.windowHours, $0.horizonDays) }
        let clock = Int64(now().timeIntervalSince1970)
        let first = query["Start"].flatMap { Int64($0) } ?? (clock / 3600 * 3600)
        guard first < clock + Int64(horizon) * 86_400 else { return Receiver.Answer(json: "[]") }
        let lineup = (try? JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixtures.appendingPathComponent("lineup.json")))) as? [[String: Any]] ?? []
        let channels: [[String: Any]] = lineup.map { entry in
            let number = entry["GuideNumber"] as? String ?? "", name = entry["GuideName"] as? String ?? ""
            let airings: [[String: Any]] = (0..<hours).map { hour in
                let start = first / 3600 * 3600 + Int64(hour) * 3600
                var airing: [String: Any] = ["StartTime": start, "EndTime": start + 3600, "Title": "\(name) Hour \(start / 3600 % 24)",
                                             "Synopsis": "SYNTHETIC: an hour of \(name).", "Filter": [hour % 2 == 0 ? "News" : "Drama"],
                                             "SeriesID": "C\(number)"]
                if hour % 2 == 1 {
                    airing["EpisodeTitle"] = "Part \(hour)"
                    airing["EpisodeNumber"] = "S02E\(String(format: "%02d", hour))"
                    airing["OriginalAirdate"] = start - 400 * 86_400
                }
                return airing
            }
            return ["GuideNumber": number, "GuideName": name, "ImageURL": "https://img.hdhomerun.com/channels/SYNTHETIC-\(number).png",
                    "Guide": airings]
        }
        return Receiver.Answer(json: Self.text(channels))
    }

    static func recorded(_ file: String) -> Receiver.Answer {
        Receiver.Answer(json: (try? String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)) ?? "{}")
    }

    static func text(_ object: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }
}
