import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird

/// The admin feeds page's tuners: each feed is an HDHomeRun tuner at `/hdhomerun/TOKEN/` (for Jellyfin, Emby and
/// Channels DVR, which take an address with a path), and, for Plex, which takes ADDRESS:PORT only, at the root of a
/// port of the feed's own an admin gives it here (``TunerPorts``).
extension FeedAdminPage {
    /// A feed's tuner as its row shows it.
    struct TunerEntry {
        /// The port, for the form ("" for none).
        var port: String
        /// What to type into Plex, once the port listens.
        var plexAddress: String?
        /// Why it does not listen, or that it is starting.
        var problem: String?
    }

    func tunerEntry(_ feed: LineupFeed, _ request: Request, _ context: AdminRequestContext, _ words: Localizer) -> TunerEntry {
        guard let port = feed.tunerPort else { return TunerEntry(port: "") }
        let state = tuners?.states()[feed.id]
        switch state?.port == port ? state?.state : nil {
        case .listening?:
            // The host this page was reached at, with the tuner's port: where Plex, on the same network, finds it.
            let host = URLComponents(string: settings.directAddress(for: request, local: context.local))?.host ?? "ADDRESS"
            return TunerEntry(port: "\(port)", plexAddress: "\(host):\(port)")
        case .failed(let reason)?: return TunerEntry(port: "\(port)", problem: words("Not listening: {reason}.", ["reason": reason]))
        case .starting?, nil: return TunerEntry(port: "\(port)", problem: words("Starting; reload the page in a moment."))
        }
    }

    func registerTuners(on routes: RouteGroups) {
        routes.admin.post(.feedTunerPort) { request, context in try await setTunerPort(request, context) }
    }

    private func setTunerPort(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let form: TunerPortForm
        do {
            form = try await TunerPortForm(request, context)
        } catch let error as FieldError {
            return try await render(request, context, message: error.message(words) + ".", isError: true, status: .badRequest)
        }
        guard let id = form.id, try await store.lineupFeeds().contains(where: { $0.id == id }) else {
            return try await render(request, context, message: words("No such feed."), isError: true, status: .badRequest)
        }
        do {
            try await store.setTunerPort(of: id, to: form.port)
        } catch let error as StoreError where error.code == .invalid || error.code == .conflict {
            return try await render(request, context, message: words("Not changed: {error}.", ["error": error.message(words)]), isError: true, status: .badRequest)
        }
        tuners?.changed()
        // A moment for the port to open, so the page can say where Plex finds it.
        for _ in 0..<20 where form.port != nil {
            if let state = tuners?.states()[id], state.state != .starting { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await render(request, context, message: form.port.map { words("The feed's tuner is on port {port}.", ["port": String($0)]) }
                                ?? words("The feed's tuner port is closed."))
    }
}

/// Admin, a feed's tuner port: the feed's id and a port (empty closes it).
struct TunerPortForm: PostedForm {
    let id: Int64?
    let port: Int?

    init(_ form: FormFields) throws(FieldError) {
        id = try form.integer64("id", in: 1...Int64.max, called: "The id")
        port = try form.integer("port", in: LineupFeed.tunerPorts, called: "The port")
    }
}
