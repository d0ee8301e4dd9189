import Foundation
import GuideApplication
import GuideCore
import GuideReminders
import GuideStore
import GuideWebFormats
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
        /// The state in the viewer's words.
        var stateWords: String
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
        routes.profile.post(SitePath.cancelReminder) { request, context, id in
            let profile = context.profile
            try await store.cancelReminder(ReminderID(rawValue: id.rawValue), of: profile.id, at: settings.now())
            let words = pages.words(context)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), words("Cancelled.")))
        }
        routes.profile.post(.deliveryChannels) { request, context in try await addChannel(request, context) }
        routes.profile.post(.savedSearches) { request, context in
            let profile = context.profile
            let form = try await SavedSearchForm(request, context)
            let added = try await actions.saveSearch(profile, words: form.words, channels: form.channels, lead: form.lead, records: form.records).matched
            let words = pages.words(context)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), words.plural("Saved. {count} programme in the listings matches it now.",
                                                                                          "Saved. {count} programmes in the listings match it now.",
                                                                                          count: added)))
        }
        routes.profile.post(SitePath.removeSavedSearch) { request, context, id in
            let profile = context.profile
            try await store.removeSavedSearch(id.rawValue, of: profile.id)
            let words = pages.words(context)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), words("Removed.")))
        }
        routes.profile.post(SitePath.testDeliveryChannel) { request, context, id in
            let channel = try await ownChannel(id, context)
            let words = pages.words(context)
            let error = try await actions.test(channel, of: context.profile, words: words)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), error.map { words("The test did not arrive: {error}", ["error": $0.worded(words)]) }
                                                       ?? words("Test sent to {channel}.", ["channel": channel.what.name])))
        }
        routes.profile.post(SitePath.removeDeliveryChannel) { request, context, id in
            let channel = try await ownChannel(id, context)
            try await store.removeDeliveryChannel(channel.id, of: channel.what.profile)
            let words = pages.words(context)
            return Response.redirect(to: SitePath.done(SitePath.reminders(), words("Removed {channel}.", ["channel": channel.what.name])))
        }
    }

    func page(_ request: Request, _ context: ProfileRequestContext, message: String?) async throws -> HTMLPage {
        let profile = context.profile
        let clock = settings.clock(context)
        let channels = try await store.deliveryChannels(of: profile.id)
        let names = Dictionary(channels.map { ($0.id, $0.what.name) }, uniquingKeysWith: { first, _ in first })
        let words = pages.words(context)
        func line(_ reminder: Reminder) -> ReminderLine {
            ReminderLine(id: reminder.id.rawValue, title: reminder.what.title, channel: reminder.what.channelName,
                         when: clock.date(reminder.what.start) + " " + clock.time(reminder.what.start),
                         lead: Self.lead(reminder.what.leadMinutes, words),
                         state: reminder.state.rawValue, stateWords: Self.label(reminder.state, words), note: reminder.note?.worded(words),
                         isPending: reminder.state == .pending)
        }
        let model = RemindersModel(
            chrome: await pages.chrome(context, section: "reminders"), title: words("Reminders"), message: message,
            pending: try await store.reminders(of: profile.id, in: [.pending], limit: 500).map(line),
            done: try await store.reminders(of: profile.id, in: [.sent, .missed, .failed, .cancelled], limit: 50)
                .sorted { ($0.finished ?? $0.created) > ($1.finished ?? $1.created) }.map(line),
            channels: channels.map { channel in
                ChannelLine(id: channel.id.rawValue, name: channel.what.name, kind: channel.what.kind.rawValue, target: channel.what.target,
                            lastSent: channel.lastSent.map { clock.date($0) + " " + clock.time($0) }, lastError: channel.lastError?.worded(words))
            },
            // A browser subscribes to push through its own script, not this form.
            kinds: dispatcher.senders.kinds.filter { $0 != .webPush }.map { Choice(value: $0.rawValue, label: Self.label($0, words), isSelected: false) },
            canPush: dispatcher.senders.kinds.contains(.webPush),
            log: try await store.deliveryLog(of: profile.id, limit: 30).map { entry in
                LogLine(when: clock.date(entry.at) + " " + clock.time(entry.at), channel: names[entry.channel] ?? words("(removed)"),
                        title: entry.reminder == nil ? words("Test") : entry.title, error: entry.error?.worded(words))
            },
            leadChoices: Self.leadChoices(words),
            searches: try await store.savedSearches(of: profile.id).map { search in
                SearchLine(id: search.id, words: search.what.words,
                           channels: search.what.channels.isEmpty ? nil : search.what.channels.map(\.rawValue).joined(separator: ", "),
                           lead: Self.lead(search.what.leadMinutes, words),
                           records: search.what.records)
            })
        return try pages.page("reminders", model)
    }

    func add(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await RemindForm(request, context)
        let reminder = try await actions.remind(profile, programme: form.programme, lead: form.lead)
        let clock = settings.clock(context)
        let words = pages.words(context)
        let done = words("You will be reminded of {title} ({date} {time}).",
                         ["title": reminder.what.title, "date": clock.date(reminder.what.start), "time": clock.time(reminder.what.start)])
        let next = form.next ?? SitePath.reminders()
        return Response.redirect(to: SitePath.done(next, done))
    }

    func addChannel(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await DeliveryChannelForm(request, context)
        let channel = try await actions.addChannel(profile, kind: form.kind, name: form.name, target: form.target, secret: form.secret)
        let words = pages.words(context)
        return Response.redirect(to: SitePath.done(SitePath.reminders(), words("Added {channel}. Send it a test to see that it works.",
                                                                             ["channel": channel.what.name])))
    }

    /// The channel in the path, if it is the signed-in profile's.
    private func ownChannel(_ id: RowNumber, _ context: ProfileRequestContext) async throws -> DeliveryChannel {
        try await actions.channel(id.rawValue, of: context.profile)
    }

    static func label(_ kind: NewDeliveryChannel.Kind, _ words: Localizer) -> String {
        switch kind {
        case .ntfy: words("ntfy topic")
        case .webhook: words("Webhook (JSON POST)")
        case .email: words("E-mail")
        case .webPush: words("This browser (push)")
        }
    }

    /// A reminder's state as the page says it.
    static func label(_ state: Reminder.State, _ words: Localizer) -> String {
        switch state {
        case .pending: words("pending")
        case .sent: words("sent")
        case .missed: words("missed")
        case .failed: words("failed")
        case .cancelled: words("cancelled")
        }
    }

    /// "15 min before", or "at the start".
    static func lead(_ minutes: Int, _ words: Localizer) -> String {
        minutes == 0 ? words("at the start") : words("{minutes} min before", ["minutes": words.number(minutes)])
    }
}

/// "Remind me": the programme's id in the guide, the lead in minutes (15 unless chosen), and the page to go back to.
struct RemindForm: PostedForm {
    let programme: String
    let lead: Int?
    /// A path on this site to go back to, if the form named one.
    let next: String?

    init(_ form: FormFields) throws(FieldError) {
        programme = try form.text("programme", limit: 20, called: "The programme") ?? ""
        lead = try form.integer("lead", in: Reminder.leadRange, called: "The lead (minutes)")
        next = try form.text("next", limit: 2_000, called: "The page to go back to").map { SignInPages.safeReturn($0) }
    }
}

/// "Add a delivery channel": its kind, a name, where it sends (a topic, an address) and an optional secret.
struct DeliveryChannelForm: PostedForm {
    let kind: String
    let name: String
    let target: String
    let secret: String?

    init(_ form: FormFields) throws(FieldError) {
        kind = try form.text("kind", limit: 20, called: "The kind") ?? ""
        name = try form.text("name", limit: 200, called: "The name") ?? ""
        target = try form.text("target", limit: 2048, called: "The address") ?? ""
        secret = try form.text("secret", limit: 512, called: "The secret")
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
        words = try form.text("words", limit: 200, called: "The words") ?? ""
        channels = try form.text("channels", limit: 10_000, called: "The channels")?.split(separator: ",").map(String.init) ?? []
        lead = try form.integer("lead", in: Reminder.leadRange, called: "The lead (minutes)")
    }
}
