import Foundation

/// The templates' links, from the same description as the routes: a template names a path, `{@show showID}`, and
/// its copy for a language has it as `/shows/{{showID}}` before Mustache reads it. The values are the page's
/// (Mustache names, in the order of the path's `:name` segments) or, in single quotes, literal (`{@asset 'grid.js'}`);
/// a query is written after the name (`{@signIn}?next={{returnTo}}`). The marker may stand in a translated text too
/// (`<a href="{@programme id}">{title}</a>`): a translation keeps it as it is, as it keeps a `{name}`.
///
/// A name that is no path, or values that do not fill its segments, stop the templates from loading (the server
/// does not start; `CatalogTests.everyLanguagesTemplatesParse` fails): a link cannot name a path that moved.
enum SiteLinks {
    /// The paths a template may name, by the name it uses: each ``SitePath``'s own name.
    static let named: [String: SitePath] = [
        "guide": SitePath.guide, "now": SitePath.now, "search": SitePath.search, "programme": SitePath.programme.path,
        "programmeCalendar": SitePath.programmeCalendar.path, "asset": SitePath.asset.path, "manifest": SitePath.manifest,
        "theme": SitePath.theme, "signIn": SitePath.signIn, "signOut": SitePath.signOut, "setup": SitePath.setup,
        "shows": SitePath.shows, "show": SitePath.show.path, "season": SitePath.season.path, "follow": SitePath.follow.path,
        "unfollow": SitePath.unfollow.path, "watched": SitePath.watched.path, "upNext": SitePath.upNext,
        "history": SitePath.history, "historyJSON": SitePath.historyJSON, "historyCSV": SitePath.historyCSV,
        "historyImport": SitePath.historyImport, "historyConfirm": SitePath.historyConfirm, "historyTVMaze": SitePath.historyTVMaze,
        "historyTVMazeSync": SitePath.historyTVMazeSync, "historyTVMazeDisconnect": SitePath.historyTVMazeDisconnect,
        "showReminders": SitePath.showReminders.path, "episode": SitePath.episode.path, "people": SitePath.people,
        "person": SitePath.person.path, "lineup": SitePath.lineup, "favourites": SitePath.favourites, "settings": SitePath.settings,
        "seriesSettings": SitePath.seriesSettings, "calendarAddress": SitePath.calendarAddress, "upcoming": SitePath.upcoming,
        "calendar": SitePath.calendar, "reminders": SitePath.reminders, "recordings": SitePath.recordings,
        "cancelRecording": SitePath.cancelRecording.path, "cancelReminder": SitePath.cancelReminder.path,
        "deliveryChannels": SitePath.deliveryChannels, "testDeliveryChannel": SitePath.testDeliveryChannel.path,
        "removeDeliveryChannel": SitePath.removeDeliveryChannel.path, "savedSearches": SitePath.savedSearches,
        "removeSavedSearch": SitePath.removeSavedSearch.path,
        "admin": SitePath.admin, "adminProfiles": SitePath.adminProfiles, "removeProfile": SitePath.removeProfile,
        "adminTokens": SitePath.adminTokens, "revokeToken": SitePath.revokeToken, "adminImport": SitePath.adminImport,
        "adminChannels": SitePath.adminChannels, "channelLogo": SitePath.channelLogo, "channelGroups": SitePath.channelGroups,
        "removeChannelGroup": SitePath.removeChannelGroup, "guestGroup": SitePath.guestGroup, "timeshift": SitePath.timeshift,
        "removeTimeshift": SitePath.removeTimeshift, "adminFeeds": SitePath.adminFeeds, "removeFeed": SitePath.removeFeed,
        "feedTunerPort": SitePath.feedTunerPort, "reloadTargets": SitePath.reloadTargets, "tellReloadTarget": SitePath.tellReloadTarget,
        "removeReloadTarget": SitePath.removeReloadTarget, "sources": SitePath.sources, "source": SitePath.source,
        "removeSource": SitePath.removeSource, "sourceChannels": SitePath.sourceChannels, "schedulesDirect": SitePath.schedulesDirect,
        "schedulesDirectSignIn": SitePath.schedulesDirectSignIn, "schedulesDirectSignOut": SitePath.schedulesDirectSignOut,
        "schedulesDirectLineup": SitePath.schedulesDirectLineup, "schedulesDirectArtwork": SitePath.schedulesDirectArtwork,
        "boxes": SitePath.boxes, "tvheadendPreset": SitePath.tvheadendPreset, "hdhomerunPreset": SitePath.hdhomerunPreset,
        "enigma2Preset": SitePath.enigma2Preset, "grabbers": SitePath.grabbers, "grabber": SitePath.grabber,
        "grabberStage": SitePath.grabberStage, "grabberChannels": SitePath.grabberChannels,
        "grabberConfiguration": SitePath.grabberConfiguration, "refresh": SitePath.refresh, "refreshEvents": SitePath.refreshEvents,
        "health": SitePath.health, "adminRecorder": SitePath.adminRecorder, "recorderChannels": SitePath.recorderChannels,
        "recorderProfiles": SitePath.recorderProfiles, "xmltv": SitePath.xmltv, "xmltvCompressed": SitePath.xmltvCompressed,
        "openAPI": SitePath.openAPI,
    ]

    /// `template` with each `{@name values}` as its path.
    static func resolved(_ template: String) throws -> String {
        guard template.contains("{@") else { return template }
        var result = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{@") {
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw TemplateError("a link's {@ is not closed: \(rest[open.lowerBound...].prefix(40))")
            }
            result += rest[..<open.lowerBound]
            result += try path(rest[open.upperBound..<close])
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// One marker's path: `show showID` as `/shows/{{showID}}`.
    private static func path(_ marker: Substring) throws -> String {
        let words = marker.split(separator: " ")
        guard let name = words.first, let path = named[String(name)] else {
            throw TemplateError("{@\(marker)} names no path of the site (SiteLinks.named)")
        }
        let values = words.dropFirst()
        guard values.count == path.names.count else {
            throw TemplateError("{@\(marker)}: \(path) takes \(path.names.count) values, not \(values.count)")
        }
        var remaining = values[...]
        let segments = try path.pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix(":"), let value = remaining.popFirst() else { return String(segment) }
            let literal = value.count > 2 && value.hasPrefix("'") && value.hasSuffix("'") ? value.dropFirst().dropLast() : nil
            let allowed: (Character) -> Bool = { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
            if let literal, literal.allSatisfy(allowed) { return String(literal) }
            guard literal == nil, value.allSatisfy({ allowed($0) && $0 != "-" }) else {
                throw TemplateError("{@\(marker)}: \(value) is neither a page's value nor a quoted segment")
            }
            return "{{" + value + "}}"
        }
        return "/" + segments.joined(separator: "/")
    }
}
