import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin/feeds`, the media servers told to reload when a feed's listings change (``MediaServerReloads``): each
/// added, tried at once ("Tell now"), and shown with its last outcome.
extension FeedAdminPage {
    struct TargetEntry {
        var id: Int64
        var feed: String
        var kind: String
        var address: String
        var outcome: String
        var succeeded: Bool
    }

    func targetEntries(feeds: [LineupFeed], clock: ViewerClock, words: Localizer) async throws -> [TargetEntry] {
        let names = Dictionary(feeds.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return try await store.reloadTargets().map { target in
            TargetEntry(id: target.id, feed: names[target.feed] ?? "", kind: Self.kindLabel(target.kind, words), address: target.address,
                        outcome: target.lastOutcome.map { outcome in
                            target.lastAt.map { words.moment($0, clock) + ": " + outcome } ?? outcome
                        } ?? words("Not told yet: it will be after the next change."),
                        succeeded: target.lastSucceeded ?? true)
        }
    }

    static func kindLabel(_ kind: ReloadTarget.Kind, _ words: Localizer) -> String {
        switch kind {
        case .jellyfin: "Jellyfin"
        case .plex: "Plex"
        case .webhook: words("Webhook")
        }
    }

    /// `feed`, `kind`, `address` (an http or https address) and `secret` (Jellyfin's API key, Plex's token, or a
    /// webhook's signing secret).
    func addTarget(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let failed = { (message: String) in try await render(request, context, message: message, isError: true, status: .badRequest) }
        let form: ReloadTargetForm
        do {
            form = try await ReloadTargetForm(request, context)
        } catch let error as FieldError {
            return try await failed(error.message(words) + ".")
        }
        guard let feed = form.feed, try await store.lineupFeeds().contains(where: { $0.id == feed }) else { return try await failed(words("Choose a feed.")) }
        guard let kind = form.kind else { return try await failed(words("Choose Jellyfin, Plex or a webhook.")) }
        guard let address = form.address, ChannelLogos.isWeb(address), URL(string: address)?.host != nil else {
            return try await failed(words("The address is the server's http or https address, like http://192.168.1.10:8096."))
        }
        let secret = form.secret
        if kind != .webhook, secret == nil {
            return try await failed(kind == .plex ? words("Plex needs its token.") : words("Jellyfin needs its API key."))
        }
        do {
            _ = try await store.addReloadTarget(ReloadTarget(feed: feed, kind: kind, address: address, secret: secret))
        } catch let error as StoreError where error.code == .invalid {
            return try await failed(words("Not added: {error}.", ["error": error.message(words)]))
        }
        return try await render(request, context, message: words("{server} will be told to reload when the feed's listings change. Tell it now to check.",
                                                                ["server": Self.kindLabel(kind, words)]))
    }

    /// Calls one target at once, whatever changed, and shows the outcome.
    func tellNow(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let id = try await IDForm(request, context).id
        guard let target = try await store.reloadTargets().first(where: { $0.id == id }),
              let feed = try await store.lineupFeeds().first(where: { $0.id == target.feed }) else {
            return try await render(request, context, message: words("No such server."), isError: true, status: .badRequest)
        }
        let outcome = try await reloads.tell(target, feed: feed, fingerprint: try await feeds.fingerprint(of: feed))
        return try await render(request, context, message: "\(Self.kindLabel(target.kind, pages.words(context))): \(outcome.text).", isError: !outcome.succeeded)
    }

    func removeTarget(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        guard let id = try await IDForm(request, context).id else {
            return try await render(request, context, message: words("No such server."), isError: true, status: .badRequest)
        }
        try await store.removeReloadTarget(id)
        return try await render(request, context, message: words("It will no longer be told."))
    }
}

/// Admin, "Tell a media server": the feed, the kind of server, its address, and its key (Jellyfin's API key, Plex's
/// token, or a webhook's signing secret).
struct ReloadTargetForm: PostedForm {
    let feed: Int64?
    let kind: ReloadTarget.Kind?
    let address: String?
    let secret: String?

    init(_ form: FormFields) throws(FieldError) {
        feed = try form.integer64("feed", in: 1...Int64.max, called: "The feed")
        kind = try form.choice("kind", called: "The kind of server")
        address = try form.text("address", limit: 1024, called: "The address")
        secret = try form.text("secret", limit: 512, called: "The key")
    }
}
