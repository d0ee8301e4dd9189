import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird

/// The API's reminders, saved searches and delivery channels, the signed-in (or token's) profile's own. Reading needs a token of any
/// scope or a session; changes need a token with scope admin, as the lineup does (a browser's cookie is not enough).
struct ReminderRoutes: Sendable {
    let actions: ReminderActions

    struct ReminderDocument: ResponseEncodable {
        var id: Int64
        var kind: String
        var channel: String
        var channelName: String
        var title: String
        var start: String
        var stop: String
        var leadMinutes: Int
        var due: String
        var state: String
        var note: String?

        init(_ reminder: Reminder) {
            let what = reminder.what
            (id, kind, channel, channelName, title) = (reminder.id.rawValue, what.kind.rawValue, what.channel.rawValue, what.channelName, what.title)
            (start, stop, due) = (CivilTime.iso8601(what.start), CivilTime.iso8601(what.stop), CivilTime.iso8601(what.due))
            (leadMinutes, state, note) = (what.leadMinutes, reminder.state.rawValue, reminder.note?.description)
        }
    }

    struct RemindersDocument: ResponseEncodable {
        var reminders: [ReminderDocument]
    }

    struct ReminderRequest: Decodable {
        var programme: Int64
        var leadMinutes: Int?
    }

    /// A channel as the API shows it: never its secret, only whether it has one.
    struct ChannelDocument: ResponseEncodable {
        var id: Int64
        var kind: String
        var name: String
        var target: String
        var hasSecret: Bool
        var lastSent: String?
        var lastError: String?

        init(_ channel: DeliveryChannel) {
            (id, kind, name, target) = (channel.id.rawValue, channel.what.kind.rawValue, channel.what.name, channel.what.target)
            (hasSecret, lastSent, lastError) = (channel.what.secret != nil, channel.lastSent.map(CivilTime.iso8601), channel.lastError?.description)
        }
    }

    struct ChannelsDocument: ResponseEncodable {
        var channels: [ChannelDocument]
    }

    struct ChannelRequest: Decodable {
        var kind: String
        var name: String
        var target: String
        var secret: String?
    }

    struct PushKeyDocument: ResponseEncodable {
        var publicKey: String
    }

    struct TestDocument: ResponseEncodable {
        var delivered: Bool
        var error: String?
    }

    struct SavedSearchDocument: ResponseEncodable {
        var id: Int64
        var words: String
        var channels: [String]
        var leadMinutes: Int
        var created: String
        /// How many reminders saving it made (programmes already in the listings); only when it was just saved.
        var matched: Int?

        init(_ search: SavedSearch, matched: Int? = nil) {
            (id, words, channels) = (search.id, search.what.words, search.what.channels.map(\.rawValue))
            (leadMinutes, created, self.matched) = (search.what.leadMinutes, CivilTime.iso8601(search.created), matched)
        }
    }

    struct SavedSearchesDocument: ResponseEncodable {
        var searches: [SavedSearchDocument]
    }

    struct SavedSearchRequest: Decodable {
        var words: String
        var channels: [String]?
        var leadMinutes: Int?
    }

    func register(on routes: RouteGroups) {
        let reads = routes.api(ProfileReads.self), changes = routes.api(ProfileChanges.self)
        let store = actions.store
        reads.get(.apiReminders) { _, context in
            let profile = context.profile
            let found = try await store.reminders(of: profile.id, in: Set(Reminder.State.allCases), limit: 500)
            return RemindersDocument(reminders: found.map(ReminderDocument.init))
        }
        changes.post(.apiReminders) { request, context in
            let profile = context.profile
            let body = try await context.decodeBody(ReminderRequest.self, of: request)
            guard body.leadMinutes.map(Reminder.leadRange.contains) ?? true else {
                throw HTTPError(.badRequest, message: "leadMinutes is from 0 to 1440")
            }
            let reminder = try await actions.remind(profile, programme: String(body.programme), lead: body.leadMinutes)
            return try created(ReminderDocument(reminder), request, context)
        }
        changes.delete(SitePath.apiReminder) { _, context, id in
            let profile = context.profile
            try await store.cancelReminder(ReminderID(rawValue: id.rawValue), of: profile.id, at: actions.settings.now())
            return Response(status: .noContent)
        }
        // The server's VAPID public key, for a browser's pushManager.subscribe (applicationServerKey).
        routes.api.get(.apiPushKey) { _, _ -> PushKeyDocument in
            guard let push = actions.dispatcher.senders.push else { throw HTTPError(.notFound, message: "this server sends no push messages") }
            return PushKeyDocument(publicKey: try await push.publicKey())
        }
        reads.get(.apiDeliveryChannels) { _, context in
            let profile = context.profile
            return ChannelsDocument(channels: try await store.deliveryChannels(of: profile.id).map(ChannelDocument.init))
        }
        changes.post(.apiDeliveryChannels) { request, context in
            let profile = context.profile
            let body = try await context.decodeBody(ChannelRequest.self, of: request)
            let channel = try await actions.addChannel(profile, kind: body.kind, name: body.name, target: body.target, secret: body.secret)
            return try created(ChannelDocument(channel), request, context)
        }
        changes.delete(SitePath.apiDeliveryChannel) { _, context, id in
            let profile = context.profile
            let channel = try await actions.channel(id.rawValue, of: profile)
            try await store.removeDeliveryChannel(channel.id, of: profile.id)
            return Response(status: .noContent)
        }
        reads.get(.apiSavedSearches) { _, context in
            let profile = context.profile
            return SavedSearchesDocument(searches: try await store.savedSearches(of: profile.id).map { SavedSearchDocument($0) })
        }
        changes.post(.apiSavedSearches) { request, context in
            let profile = context.profile
            let body = try await context.decodeBody(SavedSearchRequest.self, of: request)
            guard body.leadMinutes.map(Reminder.leadRange.contains) ?? true else {
                throw HTTPError(.badRequest, message: "leadMinutes is from 0 to 1440")
            }
            let saved = try await actions.saveSearch(profile, words: body.words, channels: body.channels ?? [], lead: body.leadMinutes)
            return try created(SavedSearchDocument(saved.search, matched: saved.matched), request, context)
        }
        changes.delete(SitePath.apiSavedSearch) { _, context, number in
            let profile = context.profile
            let id = number.rawValue
            guard try await store.savedSearches(of: profile.id).contains(where: { $0.id == id }) else {
                throw HTTPError(.notFound, message: "this profile has no saved search \(id)")
            }
            try await store.removeSavedSearch(id, of: profile.id)
            return Response(status: .noContent)
        }
        changes.post(SitePath.apiTestDeliveryChannel) { _, context, id in
            let profile = context.profile
            // The API speaks English, as its errors do.
            let error = try await actions.test(try await actions.channel(id.rawValue, of: profile), of: profile, words: .english)
            return TestDocument(delivered: error == nil, error: error?.description)
        }
    }

    private func created(_ document: some ResponseEncodable, _ request: Request, _ context: some GuideContext) throws -> Response {
        var response = try document.response(from: request, context: context)
        response.status = .created
        return response
    }
}
