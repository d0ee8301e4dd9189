import Foundation
import GuideCore
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin/channels`, timeshift channels: another channel's programmes an hour or more later (or earlier), with a
/// name, number and logo of their own. Saving one makes its programmes at once (``TimeshiftChannels``).
extension ChannelAdminPage {
    struct TimeshiftEntry {
        var id: String
        var name: String
        var number: String?
        var base: String
        var offset: String
    }

    /// `base` (a channel's id or name), `offset` (minutes), `name`, and optionally `number`, `logo` and `id`.
    func saveTimeshift(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let failed = { (message: String) in
            try await render(request, context, query: "", message: message, isError: true, status: .badRequest)
        }
        let form: TimeshiftForm
        do {
            form = try await TimeshiftForm(request, context)
        } catch let error as FieldError {
            return try await failed(error.message(words) + ".")
        }
        let snapshot = try await directory.snapshot()
        let defined = try await store.timeshiftChannels()
        let typed = form.base
        guard let base = snapshot.channel(ChannelID(typed)) ?? snapshot.channels.first(where: { SearchText.fold($0.name) == SearchText.fold(typed) }) else {
            return try await failed(words("No channel is called “{name}”: give the id or name of a channel with listings to shift.", ["name": typed]))
        }
        guard !defined.contains(where: { $0.id == base.id }) else {
            return try await failed(words("{channel} is a timeshift channel itself: shift the channel it shows instead.", ["channel": base.name]))
        }
        let offset = form.offset
        guard offset != 0 else { return try await failed(words("A timeshift channel is 1 to 1,440 minutes later (or, negative, earlier).")) }
        let logo = form.logo
        if let logo, !ChannelLogos.isWeb(logo) {
            return try await failed(words("A logo is an http or https address of an image (at most 1,024 characters)."))
        }
        let name = form.name ?? "\(base.name) \(TimeshiftChannel.label(offset))"
        let id = form.id ?? TimeshiftChannel.defaultID(base: base.id, offsetMinutes: offset)
        guard name.count <= 200, id.rawValue.utf8.count <= 200 else { return try await failed(words("A name or id has at most 200 characters.")) }
        if snapshot.channel(id) != nil, !defined.contains(where: { $0.id == id }) {
            return try await failed(words("{id} is a channel from the listings already: give the timeshift channel another id.", ["id": id.rawValue]))
        }
        let channel = TimeshiftChannel(id: id, base: base.id, offsetMinutes: offset, name: name, number: form.number, logo: logo)
        do {
            try await store.saveTimeshiftChannel(channel)
        } catch let error as StoreError where error.code == .invalid {
            return try await failed(words("Not saved: {error}.", ["error": error.message(words)]))
        }
        let made = try await TimeshiftChannels(store: store).rebuild()
        return try await render(request, context, query: "",
                                message: words.plural("{name} shows the programmes of {channel} {offset}: {count} now.",
                                                      "{name} shows the programmes of {channel} {offset}: {count} now.", count: made?.programmes ?? 0,
                                                      ["name": name, "channel": base.name, "offset": TimeshiftChannel.label(offset)]))
    }

    func removeTimeshift(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let id = try await TimeshiftForm(request, context).id ?? ChannelID("")
        try await store.removeTimeshiftChannel(id)
        try await TimeshiftChannels(store: store).rebuild()
        return try await render(request, context, query: "", message: words("Removed the timeshift channel {id}.", ["id": id.rawValue]))
    }
}

/// Admin, a timeshift channel: `base` (a channel's id or name), `offset` (minutes), and optionally `name`, `number`,
/// `logo` and `id`; removing one sends only `id`.
struct TimeshiftForm: PostedForm {
    let base: String
    let offset: Int
    let name: String?
    let number: String?
    let logo: String?
    let id: ChannelID?

    init(_ form: FormFields) throws(FieldError) {
        base = try form.text("base", limit: 200, called: "The channel to shift") ?? ""
        offset = try form.integer("offset", in: TimeshiftChannel.offsetRange, called: "The offset in minutes") ?? 0
        name = try form.text("name", limit: 200, called: "The name")
        number = try form.text("number", limit: 20, called: "The number")
        logo = try form.text("logo", limit: 1024, called: "A logo's address")
        id = try form.text("id", limit: 200, called: "The id").map { ChannelID($0) }
    }
}
