import Crypto
import Foundation
import GuideCore
import GuideHTTP
import NIOCore
import Synchronization

/// A client of Schedules Direct's JSON API (20141201) that keeps SD's rules whatever it is asked
/// (../shared/data/schedulesdirect/API-NOTES.md):
/// - one token, reused until a minute before it expires, and kept across restarts; never sent once expired;
/// - the JSON body's `code` read before the HTTP status; on 4006 (or a 401/403 without a code) one new token and one
///   retry, then stop; on any other error, no retry: the call fails with SD's code and words;
/// - each code's stop kept (``SDCode/stop``): an hour after offline or busy, 15 minutes after a temporary lock, a day
///   after too many logins, until the credentials change after an account error, until 00:00 UTC for images and
///   lineup changes; a call inside a lock is refused without asking SD;
/// - at most 5,000 stations or programmes a request;
/// - images only when asked for one (``artwork(seriesID:)``), at most ``imageCallsPerDay`` image calls a UTC day, an
///   image SD said it does not have (5000) never asked for again, an image answered 4003 asked once more with a new
///   token;
/// - `User-Agent: tvguide/<version>` on every call.
public final class SchedulesDirectClient: Sendable {
    public static let defaultBase = "https://json.schedulesdirect.org/20141201"
    /// Stations a `schedules/md5` or `schedules` request names, and programmes a `programs` request asks for.
    public static let batch = 5_000
    /// The largest answer read: a batch of 5,000 programmes is about 10 MB.
    public static let largestAnswer = 128 << 20

    /// An SD account: its user name and the lowercase hex SHA-1 of its password (as SD wants it; the password itself
    /// is never kept).
    public struct Account: Sendable, Hashable {
        public let username: String
        public let passwordHash: String

        public init(username: String, passwordHash: String) {
            (self.username, self.passwordHash) = (username, passwordHash.lowercased())
        }

        public init(username: String, password: String) {
            self.init(username: username, passwordHash: Self.hash(password))
        }

        /// The lowercase hex SHA-1 of `password`.
        public static func hash(_ password: String) -> String {
            Insecure.SHA1.hash(data: Data(password.utf8)).map { String(format: "%02x", $0) }.joined()
        }

        /// Names the credentials without revealing them: where their token and locks are kept.
        var fingerprint: String {
            SHA256.hash(data: Data((username.lowercased() + "\n" + passwordHash).utf8)).prefix(16)
                .map { String(format: "%02x", $0) }.joined()
        }
    }

    let base: String
    let account: Account
    let transport: any HTTPTransport
    let userAgent: String
    let states: any SDStateStore
    let now: @Sendable () -> Date
    /// The account's state as last loaded or saved; a login under way, for callers that need a token meanwhile.
    private let state = Mutex<(loaded: SDState?, login: Task<String, any Error>?)>((nil, nil))

    /// Image calls a day at most (``imageCallsPerDay``, fewer in tests).
    let imageCallLimit: Int

    public init(account: Account, transport: any HTTPTransport, states: any SDStateStore, base: String = defaultBase,
                userAgent: String = "tvguide/\(TVGuideVersion.number)", imageCallLimit: Int = imageCallsPerDay,
                now: @escaping @Sendable () -> Date) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.imageCallLimit = imageCallLimit
        (self.account, self.transport, self.states, self.userAgent, self.now) = (account, transport, states, userAgent, now)
    }

    // MARK: The calls

    /// `GET status`: the account, its lineups and whether SD is online.
    public func status() async throws -> SDStatus {
        try await decode(SDStatus.self, call("GET", "status"))
    }

    /// `GET lineups`: the account's lineups; none is an empty list (SD answers 4102).
    public func lineups() async throws -> [SDLineup] {
        do {
            return try await decode(SDLineups.self, call("GET", "lineups")).lineups ?? []
        } catch let failure as SDFailure where failure.code == .noLineups {
            return []
        }
    }

    /// `GET headends`: the providers serving a postal code of a country (ISO 3166 alpha-3).
    public func headends(country: String, postalCode: String) async throws -> [SDHeadend] {
        let query = "country=\(Self.encoded(country))&postalcode=\(Self.encoded(postalCode))"
        return try await decode([SDHeadend].self, call("GET", "headends?" + query))
    }

    /// `GET available/countries`: the countries SD has lineups in, with an example postal code each, sorted by name
    /// (asked without a token, as SD serves it).
    public func countries() async throws -> [SDCountry] {
        let regions = try await decode([String: [SDCountry]].self, call("GET", "available/countries", authorized: false))
        return regions.values.flatMap { $0 }.sorted { $0.fullName < $1.fullName }
    }

    /// The countries whose lineups are found by Freeview transmitter rather than postal code (DVB-T), as SD's `GET
    /// available` names them ("Country options: AUS, GBR, NZL"); asked without a token.
    public func transmitterCountries() async throws -> [String] {
        let kinds = try await decode([SDAvailable].self, call("GET", "available", authorized: false))
        guard let description = kinds.first(where: { $0.type == "DVB-T" })?.description,
              let options = description.range(of: "Country options:") else { return [] }
        return description[options.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)) }
            .filter { $0.count == 3 }
    }

    /// `GET transmitters/{country}`: a DVB-T country's transmitters, each with its lineup, by name.
    public func transmitters(country: String) async throws -> [(name: String, lineup: String)] {
        try await decode([String: String].self, call("GET", "transmitters/" + Self.encoded(country)))
            .map { (name: $0.key, lineup: $0.value) }.sorted { $0.name < $1.name }
    }

    /// The locks in force now (each code's stop that is not over), for the health page and `tvguide health`: none
    /// when SD is not stopped.
    public func locksInForce() async throws -> [(scope: SDState.Scope, lock: SDState.Lock)] {
        let state = try await loadedState(), instant = now()
        return state.locks.filter { $0.value.until.map { $0 > instant } ?? true }.map { ($0.key, $0.value) }.sorted { $0.scope.rawValue < $1.scope.rawValue }
    }

    /// `GET lineups/{id}`: a lineup's stations and channel map.
    public func lineupMap(_ lineup: String) async throws -> SDLineupMap {
        try await decode(SDLineupMap.self, call("GET", "lineups/" + Self.encoded(lineup)))
    }

    /// `PUT lineups/{id}`: adds a lineup to the account (one already there counts as added); the changes left today.
    public func addLineup(_ lineup: String) async throws -> Int? {
        try await changeLineup("PUT", lineup)
    }

    /// `DELETE lineups/{id}`; the changes left today.
    public func removeLineup(_ lineup: String) async throws -> Int? {
        try await changeLineup("DELETE", lineup)
    }

    /// `POST schedules/md5` for `stations` (every day SD has), in batches of ``batch``.
    public func scheduleHashes(_ stations: [String]) async throws -> SDScheduleHashes {
        var hashes: SDScheduleHashes = [:]
        for start in stride(from: 0, to: stations.count, by: Self.batch) {
            let body = stations[start..<min(stations.count, start + Self.batch)].map { ["stationID": $0] }
            let answer = try await decode(SDScheduleHashes.self, call("POST", "schedules/md5", body: try JSONEncoder().encode(body)))
            hashes.merge(answer) { $1 }
        }
        return hashes
    }

    /// `POST schedules` for the days named of each station, in batches of ``batch`` stations: each element a station's
    /// day, or an error about it (7020 out of range, 7100 queued, 2201 deleted), for the caller to read.
    public func schedules(_ days: [(station: String, dates: [String])]) async throws -> [SDScheduleDay] {
        var elements: [SDScheduleDay] = []
        for start in stride(from: 0, to: days.count, by: Self.batch) {
            let body = days[start..<min(days.count, start + Self.batch)].map { ScheduleRequest(stationID: $0.station, date: $0.dates) }
            elements += try await decode([SDScheduleDay].self, call("POST", "schedules", body: try JSONEncoder().encode(body)))
        }
        return elements
    }

    /// `POST programs` for `ids`, in batches of ``batch``: each element a programme, or an error about one (6000,
    /// 6001), keyed by the caller by `programID` (never by position).
    public func programs(_ ids: [String]) async throws -> [SDProgram] {
        var programs: [SDProgram] = []
        for start in stride(from: 0, to: ids.count, by: Self.batch) {
            let body = Array(ids[start..<min(ids.count, start + Self.batch)])
            programs += try await decode([SDProgram].self, call("POST", "programs", body: try JSONEncoder().encode(body)))
        }
        return programs
    }

    private struct ScheduleRequest: Encodable {
        var stationID: String
        var date: [String]
    }

    private func changeLineup(_ method: String, _ lineup: String) async throws -> Int? {
        let answer: SDLineupChange
        do {
            answer = try await decode(SDLineupChange.self, call(method, "lineups/" + Self.encoded(lineup), scope: .lineupChanges))
        } catch let failure as SDFailure where failure.code == .duplicateLineup && method == "PUT" {
            return try await update { $0.changesRemaining }
        }
        let day = Self.utcDay(now())
        try await update { state in
            state.changesRemaining = answer.changesRemaining
            state.changesDay = day
        }
        return answer.changesRemaining
    }

    // MARK: Token

    /// The account's token: the one kept while it has more than a minute left, else a new one from one login (a
    /// login already under way is shared).
    func token() async throws -> String {
        let instant = now()
        let current = try await loadedState()
        if let token = current.token, let expires = current.tokenExpires, expires.timeIntervalSince(instant) > 60 { return token }
        let task = state.withLock { state -> Task<String, any Error> in
            if let login = state.login { return login }
            let login = Task { try await self.logIn() }
            state.login = login
            return login
        }
        defer { state.withLock { $0.login = nil } }
        return try await task.value
    }

    private func logIn() async throws -> String {
        let body = try JSONEncoder().encode(["username": account.username, "password": account.passwordHash])
        let data = try await call("POST", "token", body: body, authorized: false)
        let answer = try decode(SDTokenAnswer.self, data)
        guard let token = answer.token, !token.isEmpty else {
            throw SDFailure(code: SDCode(rawValue: answer.code), said: answer.message, otherwise: Sentence(saying: "no token in the answer"), status: 200)
        }
        let issued = now()
        let expires = Self.expiry(answer.tokenExpires, issued: issued)
        try await update { state in
            state.token = token
            state.tokenExpires = expires
        }
        return token
    }

    private func forgetToken() async throws {
        try await update { state in
            state.token = nil
            state.tokenExpires = nil
        }
    }

    // MARK: One call

    /// Sends one call and reads its answer: SD's code before the HTTP status; a lock in force refuses the call
    /// unasked; an expired token is replaced once and the call retried once.
    func call(_ method: String, _ path: String, body: Data? = nil, scope: SDState.Scope = .everything,
              authorized: Bool = true, accept: String = "application/json", largest: Int = largestAnswer,
              tokenInQuery: Bool = false) async throws -> Data {
        if let lock = try await loadedState().lock(on: scope, at: now()) {
            throw SDFailure(code: SDCode(rawValue: lock.code), message: lock.sentence, status: nil, until: lock.until ?? .distantFuture)
        }
        var retried = false
        while true {
            let token = authorized ? try await token() : nil
            if scope == .images { try await countImageCall() }
            let (status, data) = try await send(method, path, body: body, token: token, accept: accept, largest: largest,
                                                tokenInQuery: tokenInQuery)
            guard let failure = Self.failure(in: data, status: status) else { return data }
            // An image answered "invalid user" was asked with a token SD no longer takes: one new token, once.
            let isOldToken = failure.code == .tokenExpired || (failure.code == .invalidUser && scope == .images)
            if authorized, !retried, isOldToken || (failure.code == Self.noCode && [401, 403].contains(status)) {
                retried = true
                try await forgetToken()
                continue
            }
            try await keep(failure, scope: scope)
            throw failure
        }
    }

    /// The code of a failure without one in its body (an HTTP error SD sent no JSON with).
    static let noCode = SDCode(rawValue: -1)

    /// The failure `data` reports: a JSON object whose `code` is not 0, or an HTTP error status without one.
    static func failure(in data: Data, status: Int) -> SDFailure? {
        if let object = try? JSONDecoder().decode(CodeOnly.self, from: data), let code = object.code {
            guard code != 0 else { return nil }
            return SDFailure(code: SDCode(rawValue: code), said: object.message ?? object.response, otherwise: Sentence(saying: "no message"), status: status)
        }
        guard status >= 400 else { return nil }
        return SDFailure(code: noCode, message: .verbatim("HTTP \(status)"), status: status)
    }

    private struct CodeOnly: Decodable {
        var code: Int?
        var message: String?
        var response: String?
    }

    /// Records the stop `failure`'s code calls for.
    func keep(_ failure: SDFailure, scope: SDState.Scope) async throws {
        let instant = now()
        let lock: (SDState.Scope, Date?)?
        switch failure.code.stop {
        case .element, .run: lock = nil
        case .everything(let seconds): lock = (.everything, instant.addingTimeInterval(TimeInterval(seconds)))
        // 4003 on an image after a new token: images wait for SD's next day; the account's next login says the rest.
        case .untilCredentialsChange where scope == .images: lock = (.images, Self.nextMidnight(after: instant))
        case .untilCredentialsChange: lock = (.everything, nil)
        case .imagesUntilMidnight: lock = (.images, Self.nextMidnight(after: instant))
        case .lineupChangesUntilMidnight: lock = (.lineupChanges, Self.nextMidnight(after: instant))
        }
        guard let (scope, until) = lock else { return }
        try await update { state in
            state.locks[scope] = SDState.Lock(code: failure.code.rawValue, reason: failure.message.stored, until: until)
            if scope == .everything { state.token = nil }
        }
    }

    /// How long one call may take, its answer included (a batch of 5,000 programmes is about 10 MB).
    static let deadline: Duration = .seconds(600)

    /// One call by ``JSONCall``, its answer whatever the status (SD's code is read from the body first).
    /// `tokenInQuery`: the token goes in the address (`?token=`), as Jellyfin sends it for images, rather than in a
    /// header: SD answers an image with a redirect to another host (S3), and a header would be sent on there too.
    private func send(_ method: String, _ path: String, body: Data?, token: String?, accept: String, largest: Int,
                      tokenInQuery: Bool) async throws -> (Int, Data) {
        let query = tokenInQuery ? token.map { "?token=" + Self.encoded($0) } ?? "" : ""
        // SD asks for compression (its old 1002 DEFLATE_REQUIRED); the answer is inflated as it is read.
        var headers = [("User-Agent", userAgent), ("Accept", accept), ("Accept-Encoding", "gzip, deflate")]
        if let token, !tokenInQuery { headers.append(("token", token)) }
        do {
            let answer = try await JSONCall(transport: transport, largest: largest, deadline: Self.deadline)
                .exchange(method, base + "/" + path + query, headers: headers, body: body.map { .json($0) } ?? .none)
            return (answer.status, answer.body)
        } catch {
            switch error {
            case .notAnAddress:
                throw SDFailure(code: Self.noCode, message: Sentence(saying: "no such address: {path}", ["path": path]), status: nil)
            case .tooLarge(let limit):
                throw SDFailure(code: Self.noCode, message: Sentence(saying: "an answer larger than {size} MB", ["size": String(limit >> 20)]), status: nil)
            case .timedOut:
                throw SDFailure(code: Self.noCode, message: Sentence(saying: "{location} did not answer in time", ["location": "Schedules Direct"]), status: nil)
            case .refused(let refusal): throw refusal
            case .challenge(let challenge): throw challenge
            case .unreachable(let cause): throw cause
            case .status, .undecodable: throw error   // exchange judges neither
            }
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SDFailure(code: SDCode.invalidJSON, message: Sentence(saying: "an answer tvguide cannot read ({error})",
                                                                        ["error": "\(error)"]), status: 200)
        }
    }

    // MARK: State

    private func loadedState() async throws -> SDState {
        if let loaded = state.withLock({ $0.loaded }) { return loaded }
        let loaded = try await states.load(account.fingerprint) ?? SDState()
        state.withLock { $0.loaded = $0.loaded ?? loaded }
        return loaded
    }

    /// Changes the state as stored now (another client of the account, the pages' or a refresh's, may have changed it
    /// since this one loaded it: a lock it recorded is not written over).
    @discardableResult
    func update<T>(_ change: (inout SDState) -> T) async throws -> T {
        var current = try await states.load(account.fingerprint) ?? SDState()
        let result = change(&current)
        state.withLock { $0.loaded = current }
        try await states.save(current, account.fingerprint)
        return result
    }

    // MARK: Helpers

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._"))) ?? text
    }

    /// `instant`'s UTC day, as SD writes it.
    static func utcDay(_ instant: Date) -> String {
        CivilDate(instant, in: .gmt).description
    }

    /// How long SD's token is kept: until its `tokenExpires`, held to between 10 minutes and 24 hours from `issued`
    /// (a token is valid for 24 hours; a clock or an answer saying it expires at once must not make a login a call,
    /// which SD locks accounts for: 4009), and 24 hours when SD does not say.
    static func expiry(_ tokenExpires: Int64?, issued: Date) -> Date {
        guard let tokenExpires else { return issued.addingTimeInterval(86_400) }
        let said = Bounded.clamped(Double(tokenExpires) - issued.timeIntervalSince1970, to: 600...86_400)
        return issued.addingTimeInterval(said)
    }

    /// The next 00:00 UTC after `instant`, when SD's daily counters reset.
    static func nextMidnight(after instant: Date) -> Date {
        let days = Int64((instant.timeIntervalSince1970 / 86_400).rounded(.down)) + 1
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400))
    }
}
