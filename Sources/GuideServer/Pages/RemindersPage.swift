import Foundation
import GuideCore
import GuideReminders
import GuideStore
import Hummingbird

/// `/reminders`: "Remind me" on a programme, what is due and what was sent, the profile's delivery channels (with a
/// test message each) and the delivery log. Signed-in profiles only; every change is a POST with the form token.
struct RemindersPage: Sendable {
    let store: any ReminderStore
    let pages: Pages
    let settings: ServerSettings
    let actions: ReminderActions
    var dispatcher: ReminderDispatcher { actions.dispatcher }

    struct RemindersModel: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var pending: [ReminderLine]
        var done: [ReminderLine]
        var channels: [ChannelLine]
        var kinds: [Choice]
        /// Whether this server sends push messages: the page then offers to subscribe this browser.
        var canPush: Bool
        var log: [LogLine]
        var leadChoices: [Choice]
        var searches: [SearchLine]
    }

    struct SearchLine {
        var id: Int64
        var words: String
        var channels: String?
        var lead: String
        var records = false
    }

    struct ReminderLine {
        var id: Int64
        var title: String
        var channel: String
        var when: String
        var lead: String
        var state: String
        var note: String?
        var isPending: Bool
    }

    struct ChannelLine {
        var id: Int64
        var name: String
        var kind: String
        var target: String
        var lastSent: String?
        var lastError: String?
    }

    struct LogLine {
        var when: String
        var channel: String
        var title: String
        var error: String?
    }

    /// Lead times offered for "Remind me" (minutes), 15 chosen.
    static func leadChoices(_ words: Localizer) -> [Choice] {
        [0, 5, 10, 15, 30, 60, 120, 1440].map { (minutes: Int) -> Choice in
            let label: String = switch minutes {
            case 0: words("at the start")
            case 1440: words("a day before")
            default: words("{minutes} min before", ["minutes": words.number(minutes)])
            }
            return Choice(value: String(minutes), label: label, isSelected: minutes == 15)
        }
    }

    func register(on routes: RouteGroups) {
        routes.profile.get(.reminders) { request, context in
            // What the last change did, said on the page it returns to (text only, escaped, at most 300 characters).
            try await page(request, context, message: request.uri.queryParameters.get("done").map { String($0.prefix(300)) })
        }
        routes.profile.post(.reminders) { request, context in try await add(request, context) }
        routes.profile.post(.cancelReminder) { request, context in
            let profile = context.profile
            try await store.cancelReminder(ReminderID(rawValue: try ReminderActions.id(context)), of: profile.id, at: settings.now())
            return Response.redirect(to: SitePath.done(SitePath.reminders(), "Cancelled."))
        }
        routes.profile.post(.deliveryChannels) { request, context in try await addChannel(request, context) }
        routes.profile.post(.savedSearches) { request, context in
            let profile = context.profile
            let form = try await SavedSearchForm(request, context)
            let added = try await actions.saveSearch(profile, words: form.words, channels: form.channels, lead: form.lead, records: form.records).matched
            return Response.redirect(to: SitePath.done(SitePath.reminders(), "Saved. \(added) programme\(added == 1 ? "" : "s") in the listings match it now."))
        }
        routes.profile.post(.removeSavedSearch) { request, context in
            let profile = context.profile
            try await store.removeSavedSearch(try ReminderActions.id(context), of: profile.id)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), "Removed."))
        }
        routes.profile.post(.testDeliveryChannel) { request, context in
            let channel = try await ownChannel(request, context)
            let error = try await actions.test(channel, of: context.profile, words: pages.words(context))
            return Response.redirect(to: SitePath.done(SitePath.reminders(), error.map { "The test did not arrive: \($0)" } ?? "Test sent to \(channel.what.name)."))
        }
        routes.profile.post(.removeDeliveryChannel) { request, context in
            let channel = try await ownChannel(request, context)
            try await store.removeDeliveryChannel(channel.id, of: channel.what.profile)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), "Removed \(channel.what.name)."))
        }
    }

    func page(_ request: Request, _ context: ProfileRequestContext, message: String?) async throws -> HTMLPage {
        let profile = context.profile
        let clock = settings.clock(context)
        let channels = try await store.deliveryChannels(of: profile.id)
        let names = Dictionary(channels.map { ($0.id, $0.what.name) }, uniquingKeysWith: { first, _ in first })
        func line(_ reminder: Reminder) -> ReminderLine {
            ReminderLine(id: reminder.id.rawValue, title: reminder.what.title, channel: reminder.what.channelName,
                         when: clock.date(reminder.what.start) + " " + clock.time(reminder.what.start),
                         lead: reminder.what.leadMinutes == 0 ? "at the start" : "\(reminder.what.leadMinutes) min before",
                         state: reminder.state.rawValue, note: reminder.note, isPending: reminder.state == .pending)
        }
        let model = RemindersModel(
            chrome: await pages.chrome(context, section: "reminders"), title: "Reminders", message: message,
            pending: try await store.reminders(of: profile.id, in: [.pending], limit: 500).map(line),
            done: try await store.reminders(of: profile.id, in: [.sent, .missed, .failed, .cancelled], limit: 50)
                .sorted { ($0.finished ?? $0.created) > ($1.finished ?? $1.created) }.map(line),
            channels: channels.map { channel in
                ChannelLine(id: channel.id.rawValue, name: channel.what.name, kind: channel.what.kind.rawValue, target: channel.what.target,
                            lastSent: channel.lastSent.map { clock.date($0) + " " + clock.time($0) }, lastError: channel.lastError)
            },
            // A browser subscribes to push through its own script, not this form.
            kinds: dispatcher.senders.kinds.filter { $0 != .webPush }.map { Choice(value: $0.rawValue, label: Self.label($0), isSelected: false) },
            canPush: dispatcher.senders.kinds.contains(.webPush),
            log: try await store.deliveryLog(of: profile.id, limit: 30).map { entry in
                LogLine(when: clock.date(entry.at) + " " + clock.time(entry.at), channel: names[entry.channel] ?? "(removed)",
                        title: entry.title, error: entry.error)
            },
            leadChoices: Self.leadChoices(pages.words(context)),
            searches: try await store.savedSearches(of: profile.id).map { search in
                SearchLine(id: search.id, words: search.what.words,
                           channels: search.what.channels.isEmpty ? nil : search.what.channels.map(\.rawValue).joined(separator: ", "),
                           lead: search.what.leadMinutes == 0 ? "at the start" : "\(search.what.leadMinutes) min before",
                           records: search.what.records)
            })
        return try pages.page("reminders", model)
    }

    func add(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await RemindForm(request, context)
        let reminder = try await actions.remind(profile, programme: form.programme, lead: form.lead)
        let clock = settings.clock(context)
        let done = "You will be reminded of \(reminder.what.title) (\(clock.date(reminder.what.start)) \(clock.time(reminder.what.start)))."
        let next = form.next ?? SitePath.reminders()
        return Response.redirect(to: SitePath.done(next, done))
    }

    func addChannel(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await DeliveryChannelForm(request, context)
        let channel = try await actions.addChannel(profile, kind: form.kind, name: form.name, target: form.target, secret: form.secret)
        return Response.redirect(to: SitePath.done(SitePath.reminders(), "Added \(channel.what.name). Send it a test to see that it works."))
    }

    /// The channel in the path, if it is the signed-in profile's.
    private func ownChannel(_ request: Request, _ context: ProfileRequestContext) async throws -> DeliveryChannel {
        let profile = context.profile
        return try await actions.channel(try ReminderActions.id(context), of: profile)
    }

    static func label(_ kind: NewDeliveryChannel.Kind) -> String {
        switch kind {
        case .ntfy: "ntfy topic"
        case .webhook: "Webhook (JSON POST)"
        case .email: "E-mail"
        case .webPush: "This browser (push)"
        }
    }
}

/// "Remind me": the programme's id in the guide, the lead in minutes (15 unless chosen), and the page to go back to.
struct RemindForm: PostedForm {
    let programme: String
    let lead: Int?
    /// A path on this site to go back to, if the form named one.
    let next: String?

    init(_ form: FormFields) throws(FieldError) {
        programme = try form.text("programme", limit: 20, label: "The programme") ?? ""
        lead = try form.integer("lead", in: Reminder.leadRange, label: "The lead (minutes)")
        next = try form.text("next", limit: 2_000, label: "The page to go back to").map { SignInPages.safeReturn($0) }
    }
}

/// "Add a delivery channel": its kind, a name, where it sends (a topic, an address) and an optional secret.
struct DeliveryChannelForm: PostedForm {
    let kind: String
    let name: String
    let target: String
    let secret: String?

    init(_ form: FormFields) throws(FieldError) {
        kind = try form.text("kind", limit: 20, label: "The kind") ?? ""
        name = try form.text("name", limit: 200, label: "The name") ?? ""
        target = try form.text("target", limit: 2048, label: "The address") ?? ""
        secret = try form.text("secret", limit: 512, label: "The secret")
    }
}

/// "Tell me when": a word or two of a title, the channels (ids or names, between commas; none for all) and the lead.
struct SavedSearchForm: PostedForm {
    let words: String
    let channels: [String]
    let lead: Int?
    /// "And record each one" (for a profile that may record).
    let records: Bool

    init(_ form: FormFields) throws(FieldError) {
        records = form["records"] != nil
        words = try form.text("words", limit: 200, label: "The words") ?? ""
        channels = try form.text("channels", limit: 10_000, label: "The channels")?.split(separator: ",").map(String.init) ?? []
        lead = try form.integer("lead", in: Reminder.leadRange, label: "The lead (minutes)")
    }
}
