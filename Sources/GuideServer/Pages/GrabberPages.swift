import Foundation
import GuideCore
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// The admin's pages for XMLTV grabbers: `/admin/grabbers` (the grabbers installed on the machine, each to add as a
/// source) and `/admin/grabber?name=` (a grabber source's configuration: through the grabber's `--configure-api`
/// stages, its channels from `--list-channels`, or its configuration file edited or loaded from a file).
struct GrabberPages: Sendable {
    let store: any SourceStore & ChannelSettingsStore
    let pages: Pages
    /// Nil where this tvguide runs no grabbers: the pages say so.
    let grabbers: Grabbers?

    struct ListModel: PageModel {
        var chrome: Chrome
        var title: String
        var directories: String
        var usable: [Entry]
        var unusable: [Entry]
    }

    struct Entry {
        var name: String
        var description: String
        var capabilities: String
        var configuresByAPI: Bool
        var problem: String?
        var sourceName: String
    }

    struct ConfigureModel: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var isError: Bool
        var name: String
        var grabber: String
        var description: String
        var configuresByAPI: Bool
        var configuration: String
        var chosenChannels: Int
        var sourceLink: String
        /// A stage's questions being asked, if one is.
        var stage: StageModel?
        /// The channels offered, when they are being chosen.
        var channels: [ChannelChoice]
        var choosingChannels: Bool
    }

    struct StageModel {
        var next: String
        var questions: [QuestionModel]
    }

    struct QuestionModel {
        var id: String
        var field: String
        var asked: String
        var title: String
        var description: String
        var value: String
        var isText: Bool
        var isSecret: Bool
        var isOne: Bool
        var isMany: Bool
        var options: [Choice]
    }

    struct ChannelChoice {
        var id: String
        var name: String
        var isChosen: Bool
    }

    func register(on routes: RouteGroups) {
        routes.admin.get(.grabbers) { request, context in try await listPage(context) }
        routes.admin.get(.grabber) { request, context in
            try await configurePage(context, name: request.uri.queryParameters.get("name") ?? "")
        }
        routes.admin.post(.grabberStage) { request, context in try await answerStage(request, context) }
        routes.admin.post(.grabberChannels) { request, context in try await chooseChannels(request, context) }
        routes.admin.post(.grabberConfiguration) { request, context in try await saveConfiguration(request, context) }
    }

    func listPage(_ context: AdminRequestContext) async throws -> HTMLPage {
        let installed = await grabbers?.installed() ?? []
        let taken = Set(try await store.sources().map(\.definition.name.rawValue))
        let words = pages.words(context)
        let entries = installed.map { grabber in
            Entry(name: grabber.name, description: grabber.description.isEmpty ? grabber.name : grabber.description,
                  capabilities: grabber.capabilities.joined(separator: ", "), configuresByAPI: grabber.configuresByAPI,
                  problem: grabber.problem?.worded(words), sourceName: Self.freeName(for: grabber, taken: taken))
        }
        let model = await ListModel(
            chrome: pages.chrome(context, section: "admin"), title: words("XMLTV grabbers"),
            directories: grabbers?.directories.joined(separator: ", ") ?? words("none (this tvguide runs no grabbers)"),
            usable: entries.filter { $0.problem == nil }, unusable: entries.filter { $0.problem != nil })
        return try pages.page("grabbers", model)
    }

    /// A source name for `grabber` no source has: its description's first words, else its name.
    static func freeName(for grabber: InstalledGrabber, taken: Set<String>) -> String {
        let base = String((grabber.description.split(separator: "(").first.map(String.init) ?? grabber.name)
            .trimmingCharacters(in: .whitespaces).prefix(60))
        let name = base.isEmpty ? grabber.name : base
        guard taken.contains(name) else { return name }
        return (2...99).lazy.map { "\(name) \($0)" }.first { !taken.contains($0) } ?? grabber.name
    }

    func configurePage(_ context: AdminRequestContext, name: String, message: String? = nil, isError: Bool = false,
                       stage: GrabberQuestions? = nil, offered: [Channel]? = nil,
                       status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let definition = try await grabberSource(name)
        let configuration = GrabberConfiguration(try await store.grabberConfiguration(of: definition.name) ?? "")
        let installed = await grabbers?.grabber(named: definition.location)
        let chosen = Set(configuration.chosenChannels)
        let words = pages.words(context)
        let model = await ConfigureModel(
            chrome: pages.chrome(context, section: "admin"), title: words("Configure {name}", ["name": name]), message: message, isError: isError,
            name: name, grabber: definition.location,
            description: installed.map { $0.description + ($0.problem.map { " — " + words("cannot be used: {problem}", ["problem": $0.worded(words)]) } ?? "") }
                ?? words("not installed in {folders}", ["folders": grabbers?.directories.joined(separator: ", ") ?? words("any folder")]),
            configuresByAPI: installed?.configuresByAPI ?? false,
            configuration: configuration.shown, chosenChannels: chosen.count,
            sourceLink: SitePath.source(query: "name=" + SitePath.encoded(name)),
            stage: stage.map(Self.stageModel), channels: (offered ?? []).map {
                ChannelChoice(id: $0.id.rawValue, name: $0.name, isChosen: chosen.contains($0.id.rawValue))
            },
            choosingChannels: offered != nil)
        return try pages.page("grabber", model, status: status)
    }

    static func stageModel(_ questions: GrabberQuestions) -> StageModel {
        StageModel(next: questions.nextStage ?? "end", questions: questions.questions.filter { !$0.isConstant }.map { question in
            let value = question.suggested ?? ""
            return QuestionModel(
                id: question.id, field: "answer." + question.id, asked: "\(question.kind.rawValue):\(question.id)", title: question.title,
                description: question.description, value: question.kind == .secretstring ? "" : value,
                isText: question.kind == .string, isSecret: question.kind == .secretstring,
                isOne: question.kind == .selectone, isMany: question.kind == .selectmany,
                options: question.options.map { Choice(value: $0.value, label: $0.text, isSelected: $0.value == value) })
        } + questions.questions.filter(\.isConstant).map { question in
            // A constant is answered as given, not asked.
            QuestionModel(id: question.id, field: "answer." + question.id, asked: "string:\(question.id)", title: question.title, description: "",
                          value: question.suggested ?? "", isText: false, isSecret: false, isOne: false, isMany: false, options: [])
        })
    }

    /// Answers the stage asked (appending them to the configuration), then asks the next: its questions, the channels
    /// when it is `select-channels`, or nothing when configuration is done.
    func answerStage(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await GrabberStageForm(request, context)
        let words = pages.words(context)
        let definition = try await grabberSource(form.name)
        guard let grabbers else { return try await configurePage(context, name: form.name, message: words("This tvguide runs no grabbers."), isError: true) }
        var configuration = GrabberConfiguration(form.restart ? "" : try await store.grabberConfiguration(of: definition.name) ?? "")
        configuration = configuration.appending(form.answers, secret: form.secretKeys)
        if let problem = configuration.problem {
            return try await configurePage(context, name: form.name, message: words("Not saved: {problem}", ["problem": problem.worded(words)]), isError: true, status: .badRequest)
        }
        try await store.setGrabberConfiguration(configuration.text, of: definition.name)
        do {
            switch form.stage {
            case "end":
                return try await configurePage(context, name: form.name, message: words("Configured. Refresh {name} on its source page to grab its listings.", ["name": form.name]))
            case "select-channels":
                let offered = try await grabbers.channels(grabber: definition.location, for: definition.name, configuration: configuration)
                return try await configurePage(context, name: form.name, message: words.plural("Choose the channels to grab ({count} offered).", "Choose the channels to grab ({count} offered).", count: offered.count),
                                               offered: offered)
            default:
                let questions = try await grabbers.questions(form.stage, grabber: definition.location, for: definition.name,
                                                             configuration: configuration)
                guard !questions.questions.isEmpty || !questions.isLast else {
                    return try await configurePage(context, name: form.name, message: words("Configured. Refresh {name} on its source page to grab its listings.", ["name": form.name]))
                }
                return try await configurePage(context, name: form.name, stage: questions)
            }
        } catch let error as GrabberFailure {
            return try await configurePage(context, name: form.name, message: error.sentence.worded(words), isError: true, status: .badGateway)
        } catch let error as GrabberQuestions.Unreadable {
            return try await configurePage(context, name: form.name, message: error.sentence.worded(words), isError: true, status: .badGateway)
        }
    }

    /// Lists the grabber's channels to choose from, or keeps the choice posted as the configuration's channel lines.
    func chooseChannels(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await GrabberChannelsForm(request, context)
        let words = pages.words(context)
        let definition = try await grabberSource(form.name)
        let configuration = GrabberConfiguration(try await store.grabberConfiguration(of: definition.name) ?? "")
        guard let offered = form.offered else {
            guard let grabbers else { return try await configurePage(context, name: form.name, message: words("This tvguide runs no grabbers."), isError: true) }
            do {
                let channels = try await grabbers.channels(grabber: definition.location, for: definition.name, configuration: configuration)
                return try await configurePage(context, name: form.name, message: words.plural("Choose the channels to grab ({count} offered).", "Choose the channels to grab ({count} offered).", count: channels.count),
                                               offered: channels)
            } catch let error as GrabberFailure {
                return try await configurePage(context, name: form.name, message: error.sentence.worded(words), isError: true, status: .badGateway)
            }
        }
        let chosen = configuration.choosing(Set(form.chosen), of: offered)
        if let problem = chosen.problem {
            return try await configurePage(context, name: form.name, message: words("Not saved: {problem}", ["problem": problem.worded(words)]), isError: true, status: .badRequest)
        }
        try await store.setGrabberConfiguration(chosen.text, of: definition.name)
        return try await configurePage(context, name: form.name,
                                       message: words.plural("Chose {chosen} of {count} channel. Refresh {name} to grab their listings.",
                                                             "Chose {chosen} of {count} channels. Refresh {name} to grab their listings.", count: offered.count,
                                                             ["chosen": words.number(form.chosen.count), "name": form.name]))
    }

    func saveConfiguration(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await GrabberConfigurationForm(request, context)
        let words = pages.words(context)
        let definition = try await grabberSource(form.name)
        // Secrets are shown as kept, never as they are: posted back so, they keep the values stored.
        let stored = GrabberConfiguration(try await store.grabberConfiguration(of: definition.name) ?? "")
        let configuration = GrabberConfiguration(form.text.replacingOccurrences(of: "\r\n", with: "\n")).restoringSecrets(from: stored)
        if let problem = configuration.problem {
            return try await configurePage(context, name: form.name, message: words("Not saved: {problem}", ["problem": problem.worded(words)]), isError: true, status: .badRequest)
        }
        try await store.setGrabberConfiguration(configuration.text.isEmpty ? nil : configuration.text, of: definition.name)
        return try await configurePage(context, name: form.name, message: words("Saved its configuration. The next refresh runs the grabber with it."))
    }

    /// The grabber source called `name`; 404 when there is none.
    private func grabberSource(_ name: String) async throws -> SourceDefinition {
        guard let definition = try await store.sources().map(\.definition).first(where: { $0.name.rawValue == name && $0.format == .grabber }) else {
            throw Refusal(.notFound, saying: "There is no grabber source called {name}.", ["name": name])
        }
        return definition
    }
}

/// A stage's answers (`asked`: each question as `kind:id`; `answer.ID`: its value, or for a selectmany the options
/// chosen, `option.ID` those offered), and the stage to ask next; `restart` begins again from an empty configuration.
struct GrabberStageForm: PostedForm {
    let name: String
    let stage: String
    let restart: Bool
    let answers: [(key: String, value: String, chosen: Bool)]
    /// The answers to `secretstring` questions: kept, never shown back.
    let secretKeys: Set<String>

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 200, called: "The source") ?? ""
        stage = try form.text("stage", limit: 64, called: "The stage") ?? "start"
        guard Grabbers.isStageName(stage) else { throw FieldError(name: "stage", saying: "The stage takes a stage's name, not {stage}", ["stage": stage]) }
        restart = form.isTicked("restart")
        var answers: [(key: String, value: String, chosen: Bool)] = []
        var secretKeys = Set<String>()
        for asked in try form.list("asked", count: 100, limit: 200) {
            let parts = asked.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let kind = GrabberQuestions.Kind(rawValue: parts[0]), GrabberConfiguration.isKey(parts[1]) else {
                throw FieldError(name: "asked", saying: "A question is asked as kind:id, not {asked}", ["asked": asked])
            }
            let id = parts[1]
            switch kind {
            case .selectmany:
                let chosen = Set(try form.list("answer." + id, count: 10_000, limit: 1024))
                for option in try form.list("option." + id, count: 10_000, limit: 1024) {
                    answers.append((id, option, chosen.contains(option)))
                }
            case .string, .secretstring, .selectone:
                let value = kind == .secretstring ? try form.typed("answer." + id, called: "The answer") : try form.text("answer." + id, called: "The answer")
                answers.append((id, value ?? "", true))
                if kind == .secretstring { secretKeys.insert(id) }
            }
        }
        self.answers = answers
        self.secretKeys = secretKeys
    }
}

/// The channels offered (`offered`, absent to ask the grabber for them) and those chosen (`channel`).
struct GrabberChannelsForm: PostedForm {
    let name: String
    let offered: [String]?
    let chosen: [String]

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 200, called: "The source") ?? ""
        let offered = try form.list("offered", count: 5000, limit: 200)
        self.offered = form.isTicked("offered") ? offered : nil
        chosen = try form.list("channel", count: 5000, limit: 200)
    }
}

/// A grabber's configuration file as edited on the page.
struct GrabberConfigurationForm: PostedForm {
    let name: String
    let text: String

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 200, called: "The source") ?? ""
        text = try form.typed("configuration", limit: Grabbers.configurationLimit, called: "The configuration") ?? ""
    }
}
