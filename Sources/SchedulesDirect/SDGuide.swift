import Crypto
import Foundation
import GuideCore
import GuideStore
import XMLTV

/// A Schedules Direct source's refresh, by SD's caching contract (API-NOTES.md section 4): the account's status first
/// (stop unless SD is online); a lineup's map only when its `modified` changed; `schedules/md5` for the lineups'
/// stations; only the days whose md5 changed; only the programmes whose md5 changed, 5,000 at most a request; then
/// the guide the kept days and programmes make, written as XMLTV for the ordinary import. A failure throws, so the
/// refresh fails and the guide keeps what it has; a day SD does not have (7020, 7100, 7000) is left as it was.
public struct SDGuide: Sendable {
    public let client: SchedulesDirectClient
    public let store: any SDDocumentStore
    public let now: @Sendable () -> Date

    public init(client: SchedulesDirectClient, store: any SDDocumentStore, now: @escaping @Sendable () -> Date) {
        (self.client, self.store, self.now) = (client, store, now)
    }

    /// What a refresh asked and kept.
    public struct Counts: Sendable, Equatable {
        public var lineupsFetched = 0
        public var daysFetched = 0
        public var daysUnchanged = 0
        /// Days SD has no schedule for yet or any more (7020, 7100, 7000, 2201): left as they were.
        public var daysSkipped = 0
        public var programmesFetched = 0
        public var programmesKept = 0
        /// Programmes SD could not give (6000, 6001): their airings are written with what the schedule says.
        public var programmesMissing = 0
        public var stations = 0
        public var airings = 0
        /// Documents no refresh had used for ``keptUnused``, forgotten.
        public var forgotten = 0
        /// What the guide was made from: the lineups' versions, the days' and programmes' md5s, the artwork choice
        /// and this tvguide's version. The same fingerprint is the same guide.
        public var fingerprint = ""
        /// Whether the guide was written: not when nothing was fetched and the fingerprint is the one given.
        public var isWritten = true
    }

    /// How long a document no refresh uses is kept: 10 days.
    public static let keptUnused: TimeInterval = 10 * 86_400

    /// Brings what is kept up to date for `lineups` over `days` UTC days from yesterday, and writes the guide they
    /// make to `file`, its programmes naming SD's artwork when `artwork` is chosen; unless nothing was fetched and the
    /// guide's fingerprint is `unchanged` (the last imported one's), when there is nothing new to import.
    public func refresh(lineups wanted: [String], days: Int, artwork: Bool = false, into file: URL,
                        unchanged: String? = nil) async throws -> Counts {
        var counts = Counts()
        let instant = now()
        let status = try await client.status()
        guard status.isOnline else {
            let said = status.systemStatus?.first.map { Sentence.verbatim("\($0.status): \($0.message ?? "")") } ?? Sentence(saying: "not online")
            throw SDFailure(code: .serviceOffline, message: Sentence(saying: "Schedules Direct says it is {state}",
                                                                     sentences: ["state": said]), status: 200)
        }
        // The lineups' maps, each fetched again only when SD says it changed.
        let onAccount = Dictionary((status.lineups ?? []).map { ($0.lineup, $0) }, uniquingKeysWith: { first, _ in first })
        let keptLineups = try await store.sdVersions(under: "lineup/")
        var maps: [SDLineupMap] = []
        for lineup in wanted {
            guard let entry = onAccount[lineup] else {
                throw SDFailure(code: .lineupNotFound, message: Sentence(saying: "the lineup {lineup} is not on the Schedules Direct account",
                                                                         ["lineup": lineup]), status: nil)
            }
            let key = "lineup/" + lineup, version = entry.modified ?? ""
            if keptLineups[key] == version, !version.isEmpty, let body = try await store.sdDocuments([key])[key],
               let map = try? JSONDecoder().decode(SDLineupMap.self, from: body) {
                maps.append(map)
                continue
            }
            let map = try await client.lineupMap(lineup)
            counts.lineupsFetched += 1
            try await store.storeSDDocuments([SDDocument(key: key, version: version, body: try JSONEncoder().encode(map))], at: instant)
            maps.append(map)
        }
        var stations: [String] = []
        var entries: [String: SDLineupMap.Entry] = [:]
        var details: [String: SDLineupMap.Station] = [:]
        for map in maps {
            for entry in map.map where entries[entry.stationID] == nil {
                stations.append(entry.stationID)
                entries[entry.stationID] = entry
            }
            for station in map.stations ?? [] where details[station.stationID] == nil { details[station.stationID] = station }
        }
        counts.stations = stations.count
        guard !stations.isEmpty else {
            return try write(counts, stations: [], entries: entries, details: details, days: [:], programs: [:], artwork: artwork, into: file)
        }

        // The days whose md5 changed.
        let window = Set(Self.days(from: instant, count: days))
        let hashes = try await client.scheduleHashes(stations)
        let keptDays = try await store.sdVersions(under: "schedule/")
        var changed: [(station: String, dates: [String])] = []
        var current: [String] = []
        for station in stations {
            var dates: [String] = []
            for (date, hash) in hashes[station] ?? [:] where window.contains(date) {
                guard hash.code == 0, let md5 = hash.md5 else { counts.daysSkipped += 1; continue }
                let key = Self.dayKey(station, date)
                current.append(key)
                if keptDays[key] == md5 { counts.daysUnchanged += 1 } else { dates.append(date) }
            }
            if !dates.isEmpty { changed.append((station, dates.sorted())) }
        }
        if !changed.isEmpty {
            var fetched: [SDDocument] = []
            for day in try await client.schedules(changed) {
                if let code = day.code, code != 0 {
                    guard SDCode(rawValue: code).stop == .element else {
                        throw SDFailure(code: SDCode(rawValue: code), said: day.message, otherwise: Sentence(saying: "a schedule SD would not give"), status: 200)
                    }
                    counts.daysSkipped += 1
                    continue
                }
                guard let date = day.metadata?.startDate else { counts.daysSkipped += 1; continue }
                // Kept under the md5 this answer carries: while SD loads new data it can differ from the list's.
                let version = day.metadata?.md5 ?? hashes[day.stationID]?[date]?.md5 ?? ""
                fetched.append(SDDocument(key: Self.dayKey(day.stationID, date), version: version, body: try JSONEncoder().encode(day)))
            }
            counts.daysFetched = fetched.count
            try await store.storeSDDocuments(fetched, at: instant)
        }
        try await store.touchSDDocuments(current, at: instant)

        // The programmes whose md5 changed, asked once each.
        var schedule: [String: [SDAiring]] = [:]
        for (key, body) in try await store.sdDocuments(current) {
            guard let day = try? JSONDecoder().decode(SDScheduleDay.self, from: body) else { continue }
            schedule[String(key.split(separator: "/")[1]), default: []] += day.programs ?? []
        }
        let keptPrograms = try await store.sdVersions(under: "program/")
        var wantedPrograms: [String: String] = [:]
        var usedPrograms = Set<String>()
        for airing in schedule.values.joined() {
            usedPrograms.insert(airing.programID)
            if keptPrograms["program/" + airing.programID] != airing.md5 { wantedPrograms[airing.programID] = airing.md5 }
        }
        counts.programmesKept = usedPrograms.count - wantedPrograms.count
        if !wantedPrograms.isEmpty {
            var fetched: [SDDocument] = []
            for program in try await client.programs(wantedPrograms.keys.sorted()) {
                // Keyed by the id each element names, never by its place in the answer.
                if let code = program.code, code != 0 {
                    guard SDCode(rawValue: code).stop == .element else {
                        throw SDFailure(code: SDCode(rawValue: code), said: program.message, otherwise: Sentence(saying: "a programme SD would not give"), status: 200)
                    }
                    counts.programmesMissing += 1
                    continue
                }
                let version = program.md5 ?? wantedPrograms[program.programID] ?? ""
                fetched.append(SDDocument(key: "program/" + program.programID, version: version, body: try JSONEncoder().encode(program)))
            }
            counts.programmesFetched = fetched.count
            try await store.storeSDDocuments(fetched, at: instant)
        }
        let programKeys = usedPrograms.map { "program/" + $0 }
        try await store.touchSDDocuments(programKeys + wanted.map { "lineup/" + $0 }, at: instant)
        // What no refresh has used for 10 days goes (days past, programmes no longer aired), as tv_grab_zz_sdjson does.
        counts.forgotten = try await store.forgetSDDocuments(unusedSince: instant.addingTimeInterval(-Self.keptUnused))
        var made = ["tvguide \(TVGuideVersion.number)", "artwork \(artwork)"]
        made += wanted.map { "lineup/\($0) \(onAccount[$0]?.modified ?? "")" }
        made += current.sorted().map { key in "\(key) \(hashes[String(key.split(separator: "/")[1])]?[String(key.split(separator: "/")[2])]?.md5 ?? "")" }
        made += schedule.values.joined().map { "\($0.programID) \($0.md5)" }.sorted()
        counts.fingerprint = Self.fingerprint(made)
        if counts.lineupsFetched + counts.daysFetched + counts.programmesFetched == 0, counts.fingerprint == unchanged {
            counts.isWritten = false
            counts.stations = stations.count
            return counts
        }
        var programs: [String: SDProgram] = [:]
        for (key, body) in try await store.sdDocuments(programKeys) {
            if let program = try? JSONDecoder().decode(SDProgram.self, from: body) { programs[String(key.dropFirst("program/".count))] = program }
        }
        return try write(counts, stations: stations, entries: entries, details: details, days: schedule, programs: programs,
                         artwork: artwork, into: file)
    }

    private func write(_ counts: Counts, stations: [String], entries: [String: SDLineupMap.Entry], details: [String: SDLineupMap.Station],
                       days: [String: [SDAiring]], programs: [String: SDProgram], artwork: Bool, into file: URL) throws -> Counts {
        var counts = counts
        try XMLTVWriter.writeFile(at: file, generator: "tvguide \(TVGuideVersion.number) from Schedules Direct") { writer in
            for station in stations {
                try writer.write(SDMapping.channel(details[station], id: station, entry: entries[station]))
            }
            for station in stations {
                var seen = Set<String>()
                for airing in (days[station] ?? []).sorted(by: { $0.airDateTime < $1.airDateTime }) where seen.insert(airing.airDateTime).inserted {
                    guard let programme = SDMapping.programme(airing, programs[airing.programID], station: station, artwork: artwork) else { continue }
                    try writer.write(programme)
                    counts.airings += 1
                }
            }
        }
        return counts
    }

    /// SHA-256 of `lines`, in hex.
    static func fingerprint(_ lines: [String]) -> String {
        var hasher = SHA256()
        for line in lines { hasher.update(data: Data((line + "\n").utf8)) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func dayKey(_ station: String, _ date: String) -> String {
        "schedule/\(station)/\(date)"
    }

    /// `count` UTC days from the day before `instant` (a local evening falls on the next UTC day).
    static func days(from instant: Date, count: Int) -> [String] {
        (-1..<max(0, count)).map { SchedulesDirectClient.utcDay(instant.addingTimeInterval(TimeInterval($0) * 86_400)) }
    }
}
