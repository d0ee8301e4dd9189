import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird
import Recorders

/// `/admin/recorder`: the recorder tvguide asks to record (Tvheadend, Jellyfin, Emby or NextPVR: its address and
/// credentials, and Tvheadend's recording profile), tvguide's channels matched to the recorder's (each suggested by
/// number, else by name, until an admin saves), and which profiles may record (admins always may).
struct RecorderAdminPage: Sendable {
    let store: any GuideDatabase
    let directory: ChannelDirectory
    let pages: Pages
    let desk: RecordingDesk
    let now: @Sendable () -> Date

    /// tvguide's channels the mapping lists at most (the form stays within its size).
    static let mostChannels = 600

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var isError: Bool
        var kinds: [Choice]
        var address: String
        var username: String
        var hasRecorder: Bool
        var problem: String?
        var profiles: [Choice]
        var channels: [Row]
        var viewers: [Choice]
    }

    struct Row {
        var id: String
        var name: String
        var number: String
        var choices: [Choice]
        var isSuggested: Bool
    }

    func register(on routes: RouteGroups) {
        routes.admin.get(.adminRecorder) { request, context in try await render(request, context) }
        routes.admin.post(.adminRecorder) { request, context in try await save(request, context) }
        routes.admin.post(.recorderChannels) { request, context in try await saveChannels(request, context) }
        routes.admin.post(.recorderProfiles) { request, context in try await saveProfiles(request, context) }
    }

    func render(_ request: Request, _ context: AdminRequestContext, message: String? = nil, isError: Bool = false,
                status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let settings = try await store.recorder()
        let words = pages.words(context)
        var problem: String?, recorderChannels: [RecorderChannel] = [], recorderProfiles: [RecorderProfile] = []
        if let (client, _) = try await desk.recorder() {
            do {
                recorderChannels = try await RecordingDesk.bounded(within: RecordingDesk.pageDeadline) { try await client.channels() }
                recorderProfiles = try await RecordingDesk.bounded(within: RecordingDesk.pageDeadline) { try await client.profiles() }
            } catch let error as RecorderError {
                problem = error.description
            }
        }
        let mapping = try await store.recorderChannels()
        let listed = try await directory.snapshot().listed.prefix(Self.mostChannels)
        let suggestions = try await RecordingDesk.suggestions(for: listed.filter { mapping[$0.id] == nil }, among: recorderChannels)
        let rows = recorderChannels.isEmpty ? [] : listed.map { channel -> Row in
            let chosen = mapping[channel.id]
            let suggested = chosen == nil ? suggestions[channel.id]?.channel : nil
            let selected = chosen ?? suggested
            return Row(id: channel.id.rawValue, name: channel.name, number: channel.number ?? "",
                       choices: [Choice(value: "", label: words("(not recorded)"), isSelected: selected == nil)]
                           + recorderChannels.map { Choice(value: $0.id, label: ($0.number.map { "\($0) " } ?? "") + $0.name, isSelected: $0.id == selected) },
                       isSuggested: suggested != nil)
        }
        // The other profiles that are not admins (whom an admin may let record; admins always may).
        let viewers = try await store.profiles().filter { $0.role != .admin }.map { Choice(value: "\($0.id.rawValue)", label: $0.name, isSelected: $0.canRecord) }
        let model = await Model(
            chrome: pages.chrome(context, section: "admin"), title: words("Recorder"), message: message, isError: isError,
            kinds: RecorderSettings.Kind.allCases.map { Choice(value: $0.rawValue, label: Self.label($0, words), isSelected: $0 == settings?.kind) },
            address: settings?.address ?? "", username: settings?.username ?? "", hasRecorder: settings != nil, problem: problem,
            profiles: recorderProfiles.map { Choice(value: $0.id, label: $0.name, isSelected: $0.id == settings?.profile) },
            channels: rows, viewers: viewers)
        return try pages.page("recorder", model, status: status)
    }

    static func label(_ kind: RecorderSettings.Kind, _ words: Localizer) -> String {
        switch kind {
        case .tvheadend: words("Tvheadend (a user name and password)")
        case .jellyfin: words("Jellyfin (an API key)")
        case .emby: words("Emby (an API key)")
        case .nextpvr: words("NextPVR (its PIN)")
        }
    }

    private func save(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let form: RecorderForm
        do {
            form = try await RecorderForm(request, context)
        } catch let error as FieldError {
            return try await render(request, context, message: error.message(words) + ".", isError: true, status: .badRequest)
        }
        if form.remove {
            try await store.setRecorder(nil, at: now())
            return try await render(request, context, message: words("The recorder is removed; requests already made stay on it."))
        }
        guard let kind = form.kind else { return try await render(request, context, message: words("Choose the kind of recorder."), isError: true, status: .badRequest) }
        guard let url = URL(string: form.address), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
              url.user == nil, url.password == nil else {
            return try await render(request, context, message: words("The address is the recorder's web address, like http://192.168.1.5:9981."),
                                    isError: true, status: .badRequest)
        }
        let old = try await store.recorder()
        // A secret left empty keeps the one set before (it is never shown again).
        let secret = form.secret ?? (old?.kind == kind && old?.address == form.address ? old?.secret : nil)
        try await store.setRecorder(RecorderSettings(kind: kind, address: form.address, username: form.username, secret: secret,
                                                     profile: form.profile), at: now())
        return try await render(request, context, message: words("Saved. Match the channels below, then viewers can record."))
    }

    private func saveChannels(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let form = try await RecorderChannelsForm(request, context)
        try await store.setRecorderChannels(form.mapping)
        return try await render(request, context, message: words.plural(
            "Saved: {count} channel can be recorded.", "Saved: {count} channels can be recorded.", count: form.mapping.count))
    }

    private func saveProfiles(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let form = try await RecorderProfilesForm(request, context)
        for profile in try await store.profiles() where profile.role != .admin {
            try await store.setCanRecord(profile.id, form.allowed.contains(profile.id.rawValue))
        }
        return try await render(request, context, message: words("Saved who may record."))
    }
}

/// Admin, the recorder: its kind, address, user name, secret (password, key or PIN; empty keeps the old one), profile;
/// or `remove`.
struct RecorderForm: PostedForm {
    let remove: Bool
    let kind: RecorderSettings.Kind?
    let address: String
    let username: String?
    let secret: String?
    let profile: String?

    init(_ form: FormFields) throws(FieldError) {
        remove = form["remove"] != nil
        kind = try form.choice("kind", called: "The kind")
        address = try form.text("address", limit: 500, called: "The address") ?? ""
        username = try form.text("username", limit: 200, called: "The user name")
        secret = try form.text("secret", limit: 500, called: "The password, key or PIN")
        profile = try form.text("profile", limit: 200, called: "The profile")
    }
}

/// Admin, the channel mapping: `channel` and `recorder` repeated in pairs; an empty recorder channel is none.
struct RecorderChannelsForm: PostedForm {
    let mapping: [ChannelID: String]

    init(_ form: FormFields) throws(FieldError) {
        var mapping: [ChannelID: String] = [:]
        for (channel, recorder) in zip(form.all("channel"), form.all("recorder")).prefix(RecorderAdminPage.mostChannels)
        where !channel.isEmpty && !recorder.isEmpty && channel.utf8.count <= 500 && recorder.utf8.count <= 200 {
            mapping[ChannelID(channel)] = recorder
        }
        self.mapping = mapping
    }
}

/// Admin, who may record: the ids of the viewers allowed (`may`, repeated).
struct RecorderProfilesForm: PostedForm {
    let allowed: Set<Int64>

    init(_ form: FormFields) throws(FieldError) {
        allowed = Set(form.all("may").prefix(1000).compactMap { Bounded.integer($0, in: 1...Int64.max) })
    }
}
