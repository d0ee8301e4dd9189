import Foundation
import GuideCore
import Hummingbird

/// `/now`: each of the viewer's channels with what is on (and how far through it is) and what follows. Phone
/// first: one compact line per channel, 50 channels a page.
struct NowPage: Sendable {
    let site: Site
    static let perPage = 50

    struct Model {
        var chrome: Chrome
        var title: String
        var at: String
        var rows: [Row]
        var previousPage: String?
        var nextPage: String?
        var from: Int
        var to: Int
        var total: Int
    }

    struct Row {
        var channel: String
        var number: String?
        var logo: String?
        /// The channel's stream, from the playlist describing it.
        var watch: String?
        var now: Slot?
        var next: Slot?
    }

    struct Slot {
        var id: Int64
        var title: String
        var time: String
        var elapsed: Int
        var length: Int
        var remaining: String
    }

    func register(on router: Router<GuideRequestContext>) {
        router.get("now") { request, context in try await render(request, context) }
    }

    func render(_ request: Request, _ context: GuideRequestContext) async throws -> HTMLPage {
        let page = try QueryParameters(request: request).integer("page", in: 0...100_000, default: 0)
        let clock = site.clock(context)
        let site = self.site
        let now = site.settings.now()
        let channels = try await site.lineup(context).channels
        let from = min(page * Self.perPage, max(0, channels.count - 1))
        let slice = Array(channels[from..<min(channels.count, from + Self.perPage)])
        let found = try await site.store.nowNext(at: now, channels: slice.map(\.id), detail: .summary)
        let playlist = try await site.directory.snapshot().playlist
        let rows = zip(slice, found).map { channel, nowNext in
            Row(channel: channel.name, number: channel.number, logo: GridRow.safeImage(channel.icons),
                watch: GridRow.safeStream(playlist[channel.id]?.stream),
                now: nowNext.now.map { slot($0, now: now, clock: clock) }, next: nowNext.next.map { slot($0, now: now, clock: clock) })
        }
        let model = await Model(chrome: site.chrome(context, section: "now"), title: "On now",
                          at: "\(clock.date(now)), \(clock.time(now))", rows: rows,
                          previousPage: from > 0 ? "/now?page=\(page - 1)" : nil,
                          nextPage: from + Self.perPage < channels.count ? "/now?page=\(page + 1)" : nil,
                          from: from + 1, to: from + slice.count, total: channels.count)
        return try site.page("now", model)
    }

    private func slot(_ stored: StoredProgramme, now: Date, clock: ViewerClock) -> Slot {
        let length = max(1, Int(stored.end.timeIntervalSince(stored.programme.start) / 60))
        let elapsed = min(length, max(0, Int(now.timeIntervalSince(stored.programme.start) / 60)))
        let left = Int(stored.end.timeIntervalSince(now) / 60)
        return Slot(id: stored.id.rawValue, title: stored.programme.title,
                    time: "\(clock.time(stored.programme.start))–\(clock.time(stored.end))", elapsed: elapsed, length: length,
                    remaining: now >= stored.programme.start ? "\(max(0, left)) min left" : "")
    }
}
