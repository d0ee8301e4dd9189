import Foundation
import GuideCore
import Mustache

/// The Mustache templates in Resources/templates, read once. Every page extends `layout`, which draws the header
/// from the page's `chrome`.
struct PageRenderer: Sendable {
    private let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        guard let folder = Bundle.module.url(forResource: "templates", withExtension: nil) else {
            throw TemplateError("this build has no templates folder")
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".mustache") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            try library.register(text, named: String(file.dropLast(".mustache".count)))
        }
        self.library = library
    }

    /// `template` filled from `page`; the template's name is also the page's for the navigation's highlight.
    func render(_ template: String, _ page: some Any) throws -> String {
        guard let html = library.render(page, withTemplate: template) else {
            throw TemplateError("no template called \(template)")
        }
        return html
    }
}

struct TemplateError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the header of every page needs: who is signed in, the form token, and which section is open. Templates read
/// it through `child(named:)` (every page has one; reflection costs far more), so a new field is named there too.
struct Chrome: Sendable {
    var csrf: String
    var signedInName: String?
    var isAdmin: Bool
    var assets: String
    var isGuide: Bool
    var isNow: Bool
    var isSearch: Bool
    var isChannels: Bool
    var isAdminSection: Bool
    var isSettings: Bool
    var isShows: Bool
    var isUpcoming: Bool
    var isUpNext: Bool
    var isReminders: Bool
    /// Followed episodes airing today (the viewer's calendar day); nil when none or signed out.
    var airingToday: Int?
    /// How the page looks ("system", "light", "dark"), and the theme the header's button switches to.
    var theme: String
    var nextTheme: String
    var nextThemeLabel: String
    /// Laid out for a television (``TVMode``).
    var tv = false
    /// The viewer may ask the recorder to record (the Recordings link).
    var mayRecord = false
    var isRecordings = false

    init(csrf: String, signedInName: String?, isAdmin: Bool, section: String, assets: String, theme: Profile.Theme = .system) {
        self.theme = theme.rawValue
        let next: Profile.Theme = switch theme { case .system: .light; case .light: .dark; case .dark: .system }
        nextTheme = next.rawValue
        nextThemeLabel = switch next { case .system: "Follow the device's light or dark setting"; case .light: "Light pages"; case .dark: "Dark pages" }
        self.csrf = csrf
        self.signedInName = signedInName
        self.isAdmin = isAdmin
        self.assets = assets
        isGuide = section == "guide"
        isNow = section == "now"
        isSearch = section == "search"
        isChannels = section == "channels"
        isAdminSection = section == "admin"
        isSettings = section == "settings"
        isShows = section == "shows"
        isUpcoming = section == "upcoming"
        isUpNext = section == "up-next"
        isReminders = section == "reminders"
    }
}

/// One option of a `<select>`.
struct Choice: Sendable {
    var value: String
    var label: String
    var isSelected: Bool
}

extension Chrome {
    /// The header for whoever `context` says is asking: their name, role, form token and theme.
    init(_ context: some GuideContext, section: String, assets: String) {
        self.init(csrf: context.csrfToken, signedInName: context.viewer?.profile.name, isAdmin: context.viewer?.profile.isAdmin ?? false,
                  section: section, assets: assets, theme: context.viewer?.profile.theme ?? context.browserTheme ?? .system)
        tv = context.isTV
        mayRecord = context.viewer?.profile.mayRecord ?? false
        isRecordings = section == "recordings"
    }
}

extension Chrome: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "csrf": csrf
        case "signedInName": signedInName
        case "isAdmin": isAdmin
        case "assets": assets
        case "isGuide": isGuide
        case "isNow": isNow
        case "isSearch": isSearch
        case "isChannels": isChannels
        case "isAdminSection": isAdminSection
        case "isSettings": isSettings
        case "isShows": isShows
        case "isUpcoming": isUpcoming
        case "isUpNext": isUpNext
        case "isReminders": isReminders
        case "airingToday": airingToday
        case "theme": theme
        case "nextTheme": nextTheme
        case "nextThemeLabel": nextThemeLabel
        case "tv": tv
        case "mayRecord": mayRecord
        case "isRecordings": isRecordings
        default: nil
        }
    }
}

extension Choice: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "label": label
        case "isSelected": isSelected
        default: nil
        }
    }
}
