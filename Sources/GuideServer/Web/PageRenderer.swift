import Catalogs
import Foundation
import GuideCore
import Mustache
import Synchronization

/// The Mustache templates in Resources/templates, read once per language. Every page extends `layout`, which draws
/// the header from the page's `chrome`.
///
/// A template's words are written `{{#t}}Channels {from}–{to} of {total}{{/t}}`: English, whole sentences, with
/// `{name}` for the page's values. Each language's copy of the templates has them replaced by its catalog's
/// translation (``TemplateText``) and its links, written `{@show showID}`, by their paths (``SiteLinks``) before Mustache
/// reads them, so rendering costs nothing more.
final class PageRenderer: Sendable {
    /// The templates as written, by name.
    private let sources: [(name: String, text: String)]
    private let translations: Translations
    /// Each language's copy, made the first time a page is asked for in it (most servers see a language or two).
    private let libraries = Mutex<[Language: MustacheLibrary]>([:])

    init(translations: Translations) throws {
        guard let folder = Bundle.module.url(forResource: "templates", withExtension: nil) else {
            throw TemplateError("this build has no templates folder")
        }
        var sources: [(name: String, text: String)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".mustache") {
            sources.append((String(file.dropLast(".mustache".count)), try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)))
        }
        self.sources = sources
        self.translations = translations
        // English is made at once, so a broken template stops the server at its start rather than at a page.
        _ = try library(.english)
    }

    /// `template` filled from `page`, in the language of the page's header.
    func render(_ template: String, _ page: some PageModel) throws -> String {
        try render(template, page, language: page.chrome.language)
    }

    /// `template` filled from `page` in `language` (a fragment without a header: a details panel, a row).
    func render(_ template: String, _ page: some Any, language: Language) throws -> String {
        guard let html = try library(language).render(page, withTemplate: template) else {
            throw TemplateError("no template called \(template)")
        }
        return html
    }

    /// The templates in `language`, their words translated (a few milliseconds, once per language).
    private func library(_ language: Language) throws -> MustacheLibrary {
        if let made = libraries.withLock({ $0[language] }) { return made }
        var library = MustacheLibrary()
        let words = translations.localizer(language)
        for source in sources {
            try library.register(SiteLinks.resolved(TemplateText.translated(source.text, words)), named: source.name)
        }
        try library.register(ScriptWords.attribute(words), named: "script-words")
        libraries.withLock { $0[language] = library }
        return library
    }
}

/// A page's model: whatever it holds, it has the header, which says the page's language.
protocol PageModel {
    var chrome: Chrome { get }
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
    /// Laid out for a television (``TVMode``).
    var tv = false
    /// The viewer may ask the recorder to record (the Recordings link).
    var mayRecord = false
    var isRecordings = false
    /// The page's language: `lang` and `dir` on the page, and the copy of the templates it is written from.
    var language = Language.english
    /// The viewer's clock for the page's scripts (`data-hours`), as `Intl.DateTimeFormat` names it: h12 or h23.
    var hourCycle = "h23"

    init(csrf: String, signedInName: String?, isAdmin: Bool, section: String, assets: String, theme: Profile.Theme = .system) {
        self.theme = theme.rawValue
        let next: Profile.Theme = switch theme { case .system: .light; case .light: .dark; case .dark: .system }
        nextTheme = next.rawValue
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
        language = context.language
        hourCycle = ViewerClock.uses12Hours(locale: context.locale, hours: context.viewer?.profile.hours ?? .locale) ? "h12" : "h23"
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
        case "nextIsSystem": nextTheme == Profile.Theme.system.rawValue
        case "nextIsLight": nextTheme == Profile.Theme.light.rawValue
        case "nextIsDark": nextTheme == Profile.Theme.dark.rawValue
        case "tv": tv
        case "mayRecord": mayRecord
        case "isRecordings": isRecordings
        case "language", "lang": language.code
        case "dir": language.isRightToLeft ? "rtl" : "ltr"
        case "hourCycle": hourCycle
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
