import Foundation
import Glibc
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import GuideStoreBackends
import NIOCore
import SchedulesDirect
import SchedulesDirectReplay
import Synchronization

/// Counts what a transport's requests bring: requests made and body bytes read.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let counts = Mutex<(requests: Int, bytes: Int)>((0, 0))

    init(_ inner: any HTTPTransport) { self.inner = inner }

    func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, redirects: Redirects) async throws -> HTTPReply {
        let reply = try await inner.send(method, url, headers: headers, body: body, redirects: redirects)
        counts.withLock { $0.requests += 1 }
        return HTTPReply(status: reply.status, headers: reply.headers) { [self] in
            let part = try await reply.next()
            if let part { counts.withLock { $0.bytes += part.readableBytes } }
            return part
        }
    }
}

/// A Schedules Direct source of `stations` stations and `days` days refreshed twice from the stand-in (SD's recorded
/// answers, the recorded map's stations copied to make up the number): the first refresh, and one with nothing
/// changed. Each row: requests, bytes read, seconds, programmes imported.
/// With `base`, the stand-in is another process's (sd-replay, started by scripts/bench), so the peak RSS is tvguide's own.
func schedulesDirectBench(stations: Int, days: Int, scratch: String, base: String?) async throws -> [(String, Int, Int, Double, Int)] {
    var standIn: SchedulesDirectStandIn?
    if base == nil {
        standIn = try await SchedulesDirectStandIn(stations: stations, now: benchClock.now)
        standIn?.schedulesStart(on: CivilDate(benchClock.now().addingTimeInterval(-86_400), in: .gmt).description)
    }
    guard let address = base ?? standIn?.base else { throw CLIError("no stand-in") }
    let database = scratch + "/sd-bench.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    let store = try await openGuideDatabase(database, now: benchClock.now)
    try await SDConnection.keep(SchedulesDirectClient.Account(username: "tvguide-test", password: "correct horse"), in: store)
    let source = SourceName("SD")
    try await store.addSource(SourceDefinition(name: source, format: .schedulesdirect, location: "USA-IL57303-X",
                                               refreshInterval: 86_400, days: days))
    var rows: [(String, Int, Int, Double, Int)] = []
    try await withHTTPTransport { plain in
        let transport = CountingTransport(plain)
        let refresher = SourceRefresher(store: store, transport: transport, schedulesDirect: SDConnection(base: address, transport: transport),
                                        now: benchClock.now, clock: benchClock.waits)
        for label in ["first", "unchanged"] {
            transport.counts.withLock { $0 = (0, 0) }
            let start = DispatchTime.now().uptimeNanoseconds
            let report = try await refresher.refresh([source]).first
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            guard let report, report.outcome != .failed else { throw CLIError(report?.error ?? "no report") }
            let (requests, bytes) = transport.counts.withLock { $0 }
            rows.append((label, requests, bytes, seconds, report.programmes))
        }
    }
    try await standIn?.stop()
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    return rows
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The process's peak resident set, in MB.
func peakRSSMegabytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss / 1024
}
