import Crypto
import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// Test support: a loopback stand-in for Schedules Direct's JSON API (20141201), answering with the real answers in
/// Fixtures/schedulesdirect (PROVENANCE.md, manifest.json) as SD documents them: a token for the right user name and
/// SHA-1 of the password (4003 for anything else), every other call only with that token in the `token` header
/// (4006 with HTTP 403 once it is expired), and the account's lineups, maps, schedule hashes, schedules and
/// programmes. Tests can put a recorded error in front of a path (`fail`), expire the token, and count requests.
/// What no recording shows is composed in SD's shape and marked SYNTHETIC where it is made.
public final class SchedulesDirectStandIn: Sendable {
    public static let fixtures = Bundle.module.url(forResource: "schedulesdirect", withExtension: nil)!
    /// The version path every call hangs off.
    public static let root = "/20141201"

    let receiver: Receiver
    /// Where SD's image addresses redirect to (Amazon S3 for SD): another origin, so a token must not follow.
    let imageHost: Receiver
    let username: String
    let passwordHash: String
    /// SD's clock, for when a token expires.
    let now: @Sendable () -> Date
    let state = NIOLockedValueBox<State>(State())

    struct State {
        var token: String?
        var tokenExpired = false
        var tokensIssued = 0
        /// What `tokenExpires` says, when a test sets it (epoch seconds); else a day from now.
        var tokenExpires: Int64?
        /// Recorded failures to answer the next calls to a path with, in order.
        var failures: [String: [(status: Int, body: String)]] = [:]
        var lineups: [String] = []
        var changesRemaining = 6
        /// The first UTC day SD has schedules for (the day before "today"); it has 22 from there.
        var firstDay = "2016-08-03"
        /// Days changed since the recording (`station/date`), and programmes changed with them, by how often.
        var dayRevisions: [String: Int] = [:]
        var programRevisions: [String: Int] = [:]
        /// Image downloads answered today, the most SD gives (nil: no limit), and image URIs SD does not have.
        var imagesServed = 0
        var imageLimit: Int?
        var missingImages: Set<String> = []
    }

    /// Days SD has schedules for, from ``firstDay``.
    public static let daysKept = 22

    /// The lineups' stations: the recorded map's, and the SYNTHETIC ones a benchmark asks for beyond them.
    public let stations: [String]
    private let stationSet: Set<String>
    /// The lineup map answered: the recorded one, with those stations added.
    private let map: String

    /// Listening on 127.0.0.1, for the account `username` with `password`; its lineups have `stations` stations (the
    /// recorded map's three, and beyond them SYNTHETIC copies of them under new ids and channel numbers).
    public init(username: String = "tvguide-test", password: String = "correct horse", stations count: Int = 3,
                now: @escaping @Sendable () -> Date) async throws {
        var recordedMap = (try Self.json("sagetv/lineup_map_USA-PA67431-X_cable_trimmed.json")) as? [String: Any] ?? [:]
        let recordedEntries = recordedMap["map"] as? [[String: Any]] ?? []
        let recordedStations = recordedMap["stations"] as? [[String: Any]] ?? []
        var entries = recordedEntries, details = recordedStations
        for index in 0..<max(0, count - recordedEntries.count) where !recordedStations.isEmpty {
            let id = String(900_000 + index)
            var station = recordedStations[index % recordedStations.count]
            station["stationID"] = id
            station["callsign"] = "SYN\(index)"
            station["name"] = "SYNTHETIC \(index)"
            entries.append(["stationID": id, "channel": String(format: "%04d", 100 + index)])
            details.append(station)
        }
        recordedMap["map"] = entries
        recordedMap["stations"] = details
        map = Self.text(recordedMap)
        stations = entries.compactMap { $0["stationID"] as? String }
        stationSet = Set(stations)
        receiver = try await Receiver()
        imageHost = try await Receiver()
        self.now = now
        self.username = username
        passwordHash = Self.sha1Hex(password)
        let lineups = try Self.json("jellyfin/lineups_response.json")
        state.withLockedValue { $0.lineups = ((lineups as? [String: Any])?["lineups"] as? [[String: Any]] ?? []).compactMap { $0["lineup"] as? String } }
        receiver.respond(Self.root) { [self] request in answer(request) }
        imageHost.respond("/schedulesdirect/assets/") { _ in Receiver.Answer(bytes: Self.artwork, contentType: "image/png") }
    }

    public func stop() async throws {
        try await receiver.stop()
        try await imageHost.stop()
    }

    /// What the client is given as SD's base address.
    public var base: String { receiver.url(Self.root) }

    /// Every request, in order.
    public var requests: [Receiver.Request] { receiver.requests }

    /// The requests to `path` (after the version: `token`, `schedules/md5`).
    public func requests(to path: String) -> [Receiver.Request] { receiver.requests(to: Self.root + "/" + path) }

    /// Tokens issued so far.
    public var tokensIssued: Int { state.withLockedValue { $0.tokensIssued } }

    /// The `tokenExpires` the next logins are answered with (epoch seconds), whatever it is.
    public func answerTokenExpires(_ value: Int64) {
        state.withLockedValue { $0.tokenExpires = value }
    }

    /// The token stops working: the next call with it is answered 4006 (HTTP 403), as SD documents.
    public func expireToken() {
        state.withLockedValue { $0.tokenExpired = true }
    }

    /// SD's schedules start on `day` (UTC, `YYYY-MM-DD`): the recorded day is served for each of the 22 days from it.
    public func schedulesStart(on day: String) {
        state.withLockedValue { $0.firstDay = day }
    }

    /// SD changes `station`'s schedule on `date`: the day's md5 changes, and so do the md5s of its first airing and of
    /// that programme, as when Gracenote corrects a listing.
    public func change(station: String, date: String) {
        state.withLockedValue { state in
            state.dayRevisions["\(station)/\(date)", default: 0] += 1
            if let first = Self.recordedDay.programs.first { state.programRevisions[first.programID, default: 0] += 1 }
        }
    }

    /// Answers the next call to `path` (after the version) with the recorded answer in `fixture` (a path under
    /// Fixtures/schedulesdirect), at the HTTP status the manifest records for it (`status` when it records none).
    public func fail(_ path: String, with fixture: String, status: Int = 200) throws {
        let body = try String(contentsOf: Self.fixtures.appendingPathComponent(fixture), encoding: .utf8)
        let recorded = try Self.recordedStatus(of: fixture) ?? status
        state.withLockedValue { $0.failures[Self.root + "/" + path, default: []].append((recorded, body)) }
    }

    // MARK: Answers

    private func answer(_ request: Receiver.Request) -> Receiver.Answer {
        let path = request.path
        if let failure = state.withLockedValue({ state -> (status: Int, body: String)? in
            guard var queued = state.failures[path], !queued.isEmpty else { return nil }
            let first = queued.removeFirst()
            state.failures[path] = queued
            return first
        }) {
            return Receiver.Answer(status: failure.status, json: failure.body)
        }
        let call = String(path.dropFirst(Self.root.count + 1))
        if call == "token" { return token(request) }
        if call.hasPrefix("available") { return recorded(call == "available/countries" ? "sagetv/available_countries.json" : "sagetv/available.json") }
        switch state.withLockedValue({ state -> Bool? in
            // The token in its header, or for an image in the address (`?token=`), as SD takes it.
            let given = request.headers["token"] ?? (call.hasPrefix("image/") ? Self.queryToken(request.query) : nil)
            guard let token = state.token, given == token else { return nil }
            return !state.tokenExpired
        }) {
        case nil:
            return recorded("issue-captures/lineups_error_1004_TOKEN_MISSING_json_access_disabled_2025-05-23.json", status: 400)
        case false? where call.hasPrefix("image/"):
            // What SD answered an image asked with an old token (HTTP status not recorded; 200 as SD sends image errors).
            return recorded("issue-captures/image_error_4003_INVALID_USER_expired_token_2023-12-29.json")
        case false?:
            // SYNTHETIC: 4006 in SD's error shape, as SD documents it (HTTP 403).
            return Receiver.Answer(status: 403, json: #"{"response":"TOKEN_EXPIRED","code":4006,"serverID":"stand-in","message":"Token has expired. Request new token.","datetime":"2026-01-01T00:00:00Z"}"#)
        default:
            break
        }
        switch (request.method, call) {
        case ("GET", "status"): return status()
        case ("GET", "lineups"): return lineups()
        case ("GET", "headends"): return recorded("jellyfin/headends_response.json")
        case ("GET", "transmitters/GBR"):
            // SYNTHETIC: no answer was recorded; a name-to-lineup object as tv_grab_zz_sdjson reads it, holding the
            // recorded account's Freeview lineup.
            return Receiver.Answer(json: #"{"Crystal Palace":"GBR-1000014-DEFAULT","Sandy Heath":"GBR-1000032-DEFAULT","Carlton - LWT (Southeast)":"GBR-0001317-DEFAULT"}"#)
        case ("GET", _) where call.hasPrefix("lineups/"): return lineupMap(String(call.dropFirst("lineups/".count)))
        case ("PUT", _) where call.hasPrefix("lineups/"), ("DELETE", _) where call.hasPrefix("lineups/"):
            return changeLineup(request.method, String(call.dropFirst("lineups/".count)))
        case ("POST", "schedules/md5"): return scheduleHashes(request)
        case ("POST", "schedules"): return schedules(request)
        case ("POST", "programs"): return programs(request)
        case ("POST", "metadata/programs/"), ("POST", "metadata/programs"): return artworkIndex(request)
        case ("GET", _) where call.hasPrefix("image/"): return image(String(call.dropFirst("image/".count)))
        default:
            return Receiver.Answer(status: 404, json: #"{"code":2000,"message":"SYNTHETIC: no such call in the stand-in"}"#)
        }
    }

    private func token(_ request: Receiver.Request) -> Receiver.Answer {
        guard request.json["username"] as? String == username, request.json["password"] as? String == passwordHash else {
            return recorded("issue-captures/token_error_4003_INVALID_USER_2016-11-25.json", status: 400)
        }
        let issued = state.withLockedValue { state -> String in
            // As SD does since 2025: a login within a token's life gets the same token.
            if state.token == nil || state.tokenExpired {
                state.token = String(format: "%032x", state.tokensIssued + 0xf3fca79989ca)
                state.tokenExpired = false
                state.tokensIssued += 1
            }
            return state.token ?? ""
        }
        // The recorded answer, with this stand-in's token and the `tokenExpires` SD has added since 2025.
        var body = (try? Self.json("jellyfin/token_live_response.json")) as? [String: Any] ?? [:]
        body["token"] = issued
        body["tokenExpires"] = state.withLockedValue { $0.tokenExpires } ?? Int64(now().timeIntervalSince1970) + 86_400
        return Receiver.Answer(json: Self.text(body))
    }

    /// The recorded status, naming this account's lineups (each modified when the recorded map was).
    private func status() -> Receiver.Answer {
        var body = (try? Self.json("issue-captures/status_response_2015-07-27.json")) as? [String: Any] ?? [:]
        let modified = ((try? Self.json("sagetv/lineup_map_USA-PA67431-X_cable_trimmed.json")) as? [String: Any])
            .flatMap { $0["metadata"] as? [String: Any] }?["modified"] as? String
        body["lineups"] = state.withLockedValue { $0.lineups }.map { ["lineup": $0, "modified": modified ?? "", "uri": Self.root + "/lineups/" + $0] }
        return Receiver.Answer(json: Self.text(body))
    }

    private func lineups() -> Receiver.Answer {
        let kept = state.withLockedValue { $0.lineups }
        guard !kept.isEmpty else {
            // SYNTHETIC: 4102 in SD's error shape (HTTP 400), which every client reads as "no lineups".
            return Receiver.Answer(status: 400, json: #"{"response":"NO_LINEUPS","code":4102,"serverID":"stand-in","message":"No lineups have been added to this account."}"#)
        }
        var body = (try? Self.json("jellyfin/lineups_response.json")) as? [String: Any] ?? [:]
        body["lineups"] = ((body["lineups"] as? [[String: Any]]) ?? []).filter { kept.contains($0["lineup"] as? String ?? "") }
        return Receiver.Answer(json: Self.text(body))
    }

    private func lineupMap(_ lineup: String) -> Receiver.Answer {
        guard state.withLockedValue({ $0.lineups.contains(lineup) }) else {
            return recorded("issue-captures/lineup_error_2101_LINEUP_NOT_FOUND_2024-01-24.json", status: 400)
        }
        return Receiver.Answer(json: map)
    }

    private func changeLineup(_ method: String, _ lineup: String) -> Receiver.Answer {
        let remaining = state.withLockedValue { state -> Int in
            if method == "PUT", !state.lineups.contains(lineup) { state.lineups.append(lineup) }
            if method == "DELETE" { state.lineups.removeAll { $0 == lineup } }
            state.changesRemaining -= 1
            return state.changesRemaining
        }
        // The recorded answer to an addition, with the changes this stand-in has left.
        return Receiver.Answer(json: #"{"response":"OK","code":0,"serverID":"stand-in","message":"\#(method == "PUT" ? "Added" : "Deleted") lineup.","changesRemaining":\#(remaining),"datetime":"2021-05-14T21:06:46Z"}"#)
    }

    /// The recorded day of one station (sagetv/schedules_response_element_one_station.json), served for every station
    /// of the lineup on every day SD has, re-dated.
    struct RecordedDay: Sendable {
        struct Airing: Sendable {
            var programID: String
            var secondsIntoDay: Int
            /// The recorded airing, as JSON.
            var recorded: Data
            var json: [String: Any] { (try? JSONSerialization.jsonObject(with: recorded)) as? [String: Any] ?? [:] }
        }

        var programs: [Airing]
        var modified: String

        init() {
            let day = (try? SchedulesDirectStandIn.json("sagetv/schedules_response_element_one_station.json")) as? [String: Any] ?? [:]
            let start = Self.seconds(((day["metadata"] as? [String: Any])?["startDate"] as? String ?? "2016-08-04") + "T00:00:00Z")
            programs = (day["programs"] as? [[String: Any]] ?? []).map { airing in
                Airing(programID: airing["programID"] as? String ?? "",
                       secondsIntoDay: Self.seconds(airing["airDateTime"] as? String ?? "") - start,
                       recorded: (try? JSONSerialization.data(withJSONObject: airing)) ?? Data())
            }
            modified = (day["metadata"] as? [String: Any])?["modified"] as? String ?? ""
        }

        static func seconds(_ stamp: String) -> Int {
            let formatter = ISO8601DateFormatter()
            return Int(formatter.date(from: stamp)?.timeIntervalSince1970 ?? 0)
        }

        static func stamp(_ seconds: Int) -> String {
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
    }

    static let recordedDay = RecordedDay()

    /// The days SD has now.
    private func daysKept() -> [String] {
        let first = RecordedDay.seconds(state.withLockedValue { $0.firstDay } + "T00:00:00Z")
        return (0..<Self.daysKept).map { String(RecordedDay.stamp(first + $0 * 86_400).prefix(10)) }
    }

    /// SYNTHETIC: a day's md5 (SD's are 22 characters of base64 MD5), changing with each change of the day.
    private func dayHash(_ station: String, _ date: String) -> String {
        let revision = state.withLockedValue { $0.dayRevisions["\(station)/\(date)"] ?? 0 }
        return Self.md5("\(station)/\(date)/\(revision)")
    }

    private func airingHash(_ airing: RecordedDay.Airing) -> String {
        let revision = state.withLockedValue { $0.programRevisions[airing.programID] ?? 0 }
        return revision == 0 ? airing.json["md5"] as? String ?? "" : Self.md5("\(airing.programID)/\(revision)")
    }

    private func scheduleHashes(_ request: Receiver.Request) -> Receiver.Answer {
        let asked = ((try? JSONSerialization.jsonObject(with: request.body)) as? [[String: Any]] ?? []).compactMap { $0["stationID"] as? String }
        guard asked.count <= 5_000 else { return Self.tooMany }
        let days = daysKept()
        var answer: [String: Any] = [:]
        for station in asked where stationSet.contains(station) {
            answer[station] = Dictionary(uniqueKeysWithValues: days.map { date in
                (date, ["code": 0, "message": "OK", "lastModified": Self.recordedDay.modified, "md5": dayHash(station, date)] as [String: Any])
            })
        }
        return Receiver.Answer(json: Self.text(answer))
    }

    private func schedules(_ request: Receiver.Request) -> Receiver.Answer {
        let asked = (try? JSONSerialization.jsonObject(with: request.body)) as? [[String: Any]] ?? []
        guard asked.count <= 5_000 else { return Self.tooMany }
        let days = daysKept()
        let elements: [[String: Any]] = asked.flatMap { entry -> [[String: Any]] in
            let station = entry["stationID"] as? String ?? ""
            return (entry["date"] as? [String] ?? []).map { date in
                guard stationSet.contains(station) else {
                    // The recorded answer for a station SD has deleted.
                    var deleted = (try? Self.json("sagetv/schedules_error_2201_STATIONID_DELETED.json")) as? [String: Any] ?? [:]
                    deleted["stationID"] = station
                    return deleted
                }
                guard days.contains(date) else {
                    // The recorded answer for a day outside SD's range.
                    var outside = (try? Self.json("sagetv/schedules_error_7020_SCHEDULE_RANGE_EXCEEDED.json")) as? [String: Any] ?? [:]
                    (outside["stationID"], outside["requestedDate"], outside["minDate"], outside["maxDate"]) = (station, date, days.first, days.last)
                    return outside
                }
                let start = RecordedDay.seconds(date + "T00:00:00Z")
                let programs = Self.recordedDay.programs.map { airing -> [String: Any] in
                    var json = airing.json
                    json["airDateTime"] = RecordedDay.stamp(start + airing.secondsIntoDay)
                    json["md5"] = airingHash(airing)
                    return json
                }
                return ["stationID": station, "programs": programs,
                        "metadata": ["modified": Self.recordedDay.modified, "md5": dayHash(station, date), "startDate": date]]
            }
        }
        return Receiver.Answer(json: Self.text(elements))
    }

    private func programs(_ request: Receiver.Request) -> Receiver.Answer {
        let ids = (try? JSONSerialization.jsonObject(with: request.body)) as? [String] ?? []
        guard ids.count <= 5_000 else { return Self.tooMany }
        let aired = Dictionary(Self.recordedDay.programs.map { ($0.programID, $0) }, uniquingKeysWith: { first, _ in first })
        let invalid = (try? Self.json("sagetv/programs_error_6000_INVALID_PROGRAMID.json")) as? [String: Any] ?? [:]
        return Receiver.Answer(json: Self.text(ids.map { id -> [String: Any] in
            if var program = Self.recordedPrograms[id].flatMap({ (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] }) {
                if let airing = aired[id] { program["md5"] = airingHash(airing) }
                return program
            }
            guard let airing = aired[id] else {
                var error = invalid
                error["programID"] = id
                return error
            }
            // SYNTHETIC: the recorded airings' programmes are not among the recorded programmes, so each is answered
            // with one of those (in turn, by the airing's place in the recorded day) under the airing's own id.
            let bodies = Self.recordedPrograms.sorted { $0.key < $1.key }.map(\.value)
            let place = Self.recordedDay.programs.firstIndex { $0.programID == id } ?? 0
            var program = (try? JSONSerialization.jsonObject(with: bodies[place % max(1, bodies.count)])) as? [String: Any] ?? [:]
            program["programID"] = id
            program["md5"] = airingHash(airing)
            return program
        }))
    }

    /// The recorded programmes, by id, as JSON.
    static let recordedPrograms: [String: Data] = {
        var known: [String: Data] = [:]
        var programs = ["sagetv/program_episode.json", "sagetv/program_movie.json", "sagetv/program_show.json", "sagetv/program_sports.json"]
            .compactMap { (try? json($0)) as? [String: Any] }
        programs += (try? json("jellyfin/programs_response.json")) as? [[String: Any]] ?? []
        for program in programs {
            if let id = program["programID"] as? String { known[id] = try? JSONSerialization.data(withJSONObject: program) }
        }
        return known
    }()

    /// SYNTHETIC: SD refuses a batch past its limit with 1009 (jellyfin #13464).
    static let tooMany = Receiver.Answer(status: 400, json: #"{"response":"MAX_CHUNK_EXCEEDED","code":1009,"serverID":"stand-in","message":"Maximum 5000 per request."}"#)

    static func md5(_ text: String) -> String {
        String(Data(Insecure.MD5.hash(data: Data(text.utf8))).base64EncodedString().prefix(22))
    }

    func recorded(_ fixture: String, status: Int = 200) -> Receiver.Answer {
        let body = (try? String(contentsOf: Self.fixtures.appendingPathComponent(fixture), encoding: .utf8)) ?? "{}"
        return Receiver.Answer(status: (try? Self.recordedStatus(of: fixture)) ?? status, json: body)
    }
}
