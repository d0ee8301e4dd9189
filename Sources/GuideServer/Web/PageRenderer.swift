import Foundation
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
    var isReminders: Bool
    /// Followed episodes airing today (the viewer's calendar day); nil when none or signed out.
    var airingToday: Int?

    init(csrf: String, signedInName: String?, isAdmin: Bool, section: String, assets: String) {
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
        isReminders = section == "reminders"
    }
}

/// One option of a `<select>`.
struct Choice: Sendable {
    var value: String
    var label: String
    var isSelected: Bool
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
        case "isReminders": isReminders
        case "airingToday": airingToday
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
