import Foundation
import GuideApplication
import GuideCore
import GuideHTTPServing
import GuideIngest
import GuideStore
import Hummingbird

/// The JSON API under `/api`: channels, the guide window, now/next, a programme, search and coverage.
/// Every error is a 4xx with `{"error": {"message": ...}}` saying what to send instead.
struct APIRoutes: Sendable {
    let store: any ListingStore
    let directory: ChannelDirectory
    /// The server's clock, for windows and now/next asked without a time.
    let now: @Sendable () -> Date
    let nowNextAnswers = NowNextAnswers()
    let summaries = SummaryFragments()

    /// The widest window and the most channels one guide request may ask for.
    static let longestWindow: TimeInterval = 48 * 3600
    static let mostChannels = 1_000
    /// The furthest channel a page of /api/now may start at.
    static let mostPagedChannel = 1_000_000

    func register(on routes: RouteGroups) {
        let api = routes.api
        api.get(.apiChannels) { _, _ in try await channels() }
        api.get(.apiCoverage) { _, _ in try await coverage() }
        api.get(.apiNow) { request, _ in try await nowNext(QueryParameters(request: request), request: request) }
        api.get(.apiGuide) { request, _ in try await guide(QueryParameters(request: request), request: request) }
        api.get(SitePath.apiProgramme) { _, _, id in try await programme(id.rawValue) }
        api.get(.apiSearch) { request, _ in try await search(QueryParameters(request: request)) }
        routes.open.get(.openAPI) { _, _ -> Response in
            guard let document = Self.openAPIDocument else {
                throw HTTPError(.notFound, message: "this build has no OpenAPI document")
            }
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
        }
        // Anything else under /api is a JSON 404, not the web guide's page.
        api.get(.apiUnknown) { request, _ -> Response in
            throw HTTPError(.notFound, message: "no API route \(request.uri.path): see /openapi.json")
        }
    }

    /// The OpenAPI 3.1 description of these routes (Resources/openapi.json), read once.
    static let openAPIDocument: [UInt8]? = Bundle.module.url(forResource: "openapi", withExtension: "json")
        .flatMap { try? Data(contentsOf: $0) }.map { [UInt8]($0) }

    func channels() async throws -> [ChannelDocument] {
        let snapshot = try await directory.snapshot()
        return snapshot.channels.map { ChannelDocument($0, playlist: snapshot.playlist[$0.id]) }
    }

    func coverage() async throws -> CoverageDocument {
        let window = try await store.coverage()
        return CoverageDocument(start: window.map { CivilTime.iso8601($0.start) }, end: window.map { CivilTime.iso8601($0.end) })
    }

    func nowNext(_ query: QueryParameters, request: Request) async throws -> Response {
        let instant = try query.instant("at") ?? now()
        var channels = try query.channels(limit: Self.mostChannels)
        let known = try await directory.snapshot()
        try requireKnown(channels, in: known)
        // A page of the channels (asked for, or all of them in guide order): 10,000 channels' now and next are 4 MB.
        let from = try query.integer("from", in: 0...Self.mostPagedChannel, default: 0)
        if let count = try query.integer("count", in: 1...Self.mostChannels) {
            let all = channels ?? known.channels.map(\.id)
            channels = Array(all.dropFirst(from).prefix(count))
        } else if from > 0 {
            channels = Array((channels ?? known.channels.map(\.id)).dropFirst(from).prefix(Self.mostChannels))
        }
        let question = channels.map { $0.map(\.rawValue).joined(separator: "\n") } ?? "every channel"
        let headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let kept = nowNextAnswers.answer(to: question, generation: known.generation, at: instant) {
            return CompressibleBody.response(kept.body, for: request, headers: headers) {
                nowNextAnswers.gzipped(kept) { GzipCompression.compress($0) }
            }
        }
        var fragments = summaries.use(generation: known.generation)
        // The store reads only the programmes whose summaries are not kept (at 10,000 channels, most of them are).
        let found = try await store.nowNext(at: instant, channels: channels, detail: .summary,
                                            omitting: fragments.isKept)
        var json = JSONWriter(capacity: found.count * 400)
        json.array { json in
            // By index, the programmes read where they lie, by their ids: a copy of each (even one handed to a
            // borrowing parameter) would retain every one of its texts.
            for index in found.indices {
                json.object { json in
                    let channel = found[index].channel
                    json.key("channel"); json.string(channel.rawValue)
                    // Every channel's answer comes in guide order: its place there is found without hashing its id.
                    let listed = index < known.channels.count && known.channels[index].id == channel
                    let name = listed ? known.channels[index].name : known.channel(channel)?.name
                    json.key("name"); json.string(name ?? channel.rawValue)
                    json.key("next"); fragments.write(found[index].nextID, into: &json) { found[index].next }
                    json.key("now"); fragments.write(found[index].nowID, into: &json) { found[index].now }
                }
            }
        }
        summaries.keep(&fragments)
        let body = json.bytes
        // Kept at most an hour: a guide with nothing more to come holds its answer until the next import.
        let until = found.lazy.compactMap(\.holdsUntil).min() ?? instant.addingTimeInterval(3600)
        nowNextAnswers.keep(body, for: question, generation: known.generation, from: instant,
                            until: min(until, instant.addingTimeInterval(3600)))
        return CompressibleBody.response(body, for: request, headers: headers)
    }

    func guide(_ query: QueryParameters, request: Request) async throws -> Response {
        let from = try query.instant("from") ?? now()
        let to = try query.instant("to") ?? from.addingTimeInterval(6 * 3600)
        guard to > from else {
            throw HTTPError(.badRequest, message: "to (\(CivilTime.iso8601(to))) must be after from (\(CivilTime.iso8601(from)))")
        }
        guard to.timeIntervalSince(from) <= Self.longestWindow else {
            throw HTTPError(.badRequest, message: "the window is \(Int(to.timeIntervalSince(from) / 3600)) hours; ask for 48 hours at most")
        }
        let channels = try query.channels(limit: Self.mostChannels)
        let filter = try GenreFilter(query)
        let known = try await directory.snapshot()
        try requireKnown(channels, in: known)
        let chosen = channels ?? Array(known.channels.prefix(Self.mostChannels).map(\.id))
        let rows = try await store.guide(in: TimeWindow(start: from, end: to), channels: chosen, detail: .summary).map { listings in
            ChannelListings(channel: listings.channel, programmes: listings.programmes.filter { filter.admits($0.programme) })
        }
        var json = JSONWriter(capacity: rows.count * 2048)
        var fragments = summaries.use(generation: known.generation)
        json.object { json in
            json.key("channels")
            json.array { json in
                for listings in rows {
                    json.object { json in
                        json.key("channel")
                        ChannelDocument(known.channel(listings.channel) ?? Channel(id: listings.channel)).write(into: &json)
                        json.key("programmes")
                        json.array { json in
                            for programme in listings.programmes { fragments.write(programme, into: &json) }
                        }
                    }
                }
            }
            json.key("from"); json.instant(from)
            json.key("to"); json.instant(to)
        }
        summaries.keep(&fragments)
        let body = json.bytes
        return CompressibleBody.response(body, for: request, headers: [.contentType: "application/json; charset=utf-8"])
    }

    func programme(_ text: String) async throws -> ProgrammeDocument {
        guard let id = Bounded.integer(text, in: 1...Int64.max) else {
            throw HTTPError(.badRequest, message: "\(text) is not a programme id: ids are whole numbers")
        }
        guard let stored = try await store.programme(ProgrammeID(rawValue: id)) else {
            throw HTTPError(.notFound, message: "no programme \(id): it may have been replaced by a newer import")
        }
        return ProgrammeDocument(stored)
    }

    func search(_ query: QueryParameters) async throws -> [ProgrammeDocument] {
        guard let text = query.string("q") else {
            throw HTTPError(.badRequest, message: "search needs q, the words to find, like q=doctor+who")
        }
        let scopeText = query.string("in") ?? "title"
        guard let scope = SearchQuery.Scope(rawValue: scopeText) else {
            throw HTTPError(.badRequest, message: "in=\(scopeText) is not a search scope: use title or all")
        }
        if let problem = SearchQuery.problem(withText: text) { throw HTTPError(.badRequest, message: problem.description) }
        let limit = try query.integer("limit", in: 1...500, default: 100)
        let search = SearchQuery([text], scope: scope, limit: limit)
        guard !search.terms.isEmpty else {
            throw HTTPError(.badRequest, message: "q has no words to find")
        }
        return try await store.search(search).map(ProgrammeDocument.init)
    }

    private func requireKnown(_ channels: [ChannelID]?, in known: ChannelDirectory.Snapshot) throws {
        if let unknown = channels?.first(where: { known.channel($0) == nil }) {
            throw HTTPError(.notFound, message: "no channel \(unknown.rawValue): GET /api/channels lists them")
        }
    }
}
