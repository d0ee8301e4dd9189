import Foundation
import GuideCore

/// "Where do your listings come from?": what an empty guide's admin page offers a newcomer, for the country they pick:
/// each way tvguide can get listings there, what it costs, and the page that sets it up.
struct ListingsWays {
    struct Way {
        var title: String
        var cost: String
        var detail: String
        var link: String
        var action: String
        /// The best way for the country: shown as the one to take.
        var isFirst = false
    }

    struct Country {
        var code: String
        var name: String
        /// Schedules Direct's code for it (ISO 3166 alpha-3), when SD has lineups there (its `available/countries`).
        var schedulesDirect: String?
        /// The XMLTV project's grabbers for it (xmltv-util 1.2.1's descriptions).
        var grabbers: [String]
        /// Whether TVmaze publishes its networks' schedules (`/schedule?country=`).
        var tvmaze: Bool
    }

    /// The countries the picker offers: those with a way besides a file of one's own (the picker sorts them by their names in
    /// the viewer's language).
    static let countries: [Country] = [
        Country(code: "AR", name: "Argentina", schedulesDirect: "ARG", grabbers: [], tvmaze: false),
        Country(code: "AU", name: "Australia", schedulesDirect: "AUS", grabbers: [], tvmaze: true),
        Country(code: "AT", name: "Austria", schedulesDirect: "AUT", grabbers: [], tvmaze: false),
        Country(code: "BR", name: "Brazil", schedulesDirect: "BRA", grabbers: [], tvmaze: false),
        Country(code: "CA", name: "Canada", schedulesDirect: "CAN", grabbers: ["tv_grab_na_tvmedia"], tvmaze: true),
        Country(code: "DK", name: "Denmark", schedulesDirect: "DNK", grabbers: [], tvmaze: false),
        Country(code: "FI", name: "Finland", schedulesDirect: "FIN", grabbers: ["tv_grab_fi", "tv_grab_fi_sv"], tvmaze: false),
        Country(code: "FR", name: "France", schedulesDirect: "FRA", grabbers: ["tv_grab_fr"], tvmaze: false),
        Country(code: "DE", name: "Germany", schedulesDirect: "DEU", grabbers: [], tvmaze: false),
        Country(code: "HU", name: "Hungary", schedulesDirect: nil, grabbers: ["tv_grab_huro"], tvmaze: false),
        Country(code: "IS", name: "Iceland", schedulesDirect: nil, grabbers: ["tv_grab_is"], tvmaze: false),
        Country(code: "IE", name: "Ireland", schedulesDirect: "IRL", grabbers: [], tvmaze: true),
        Country(code: "IT", name: "Italy", schedulesDirect: "ITA", grabbers: ["tv_grab_it"], tvmaze: false),
        Country(code: "MX", name: "Mexico", schedulesDirect: "MEX", grabbers: [], tvmaze: false),
        Country(code: "NZ", name: "New Zealand", schedulesDirect: "NZL", grabbers: [], tvmaze: true),
        Country(code: "NO", name: "Norway", schedulesDirect: "NOR", grabbers: [], tvmaze: false),
        Country(code: "PT", name: "Portugal", schedulesDirect: nil, grabbers: ["tv_grab_pt_vodafone", "tv_grab_pt_meo"], tvmaze: false),
        Country(code: "RO", name: "Romania", schedulesDirect: nil, grabbers: ["tv_grab_huro"], tvmaze: false),
        Country(code: "ES", name: "Spain", schedulesDirect: "ESP", grabbers: [], tvmaze: false),
        Country(code: "SE", name: "Sweden", schedulesDirect: "SWE", grabbers: [], tvmaze: false),
        Country(code: "CH", name: "Switzerland", schedulesDirect: "CHE", grabbers: ["tv_grab_ch_search"], tvmaze: false),
        Country(code: "GB", name: "United Kingdom", schedulesDirect: "GBR", grabbers: ["tv_grab_uk_tvguide"], tvmaze: true),
        Country(code: "US", name: "United States", schedulesDirect: "USA", grabbers: ["tv_grab_na_tvmedia"], tvmaze: true),
    ]

    /// The country's name in the viewer's language ("Deutschland", "Allemagne"), else in English.
    static func name(_ country: Country, _ words: Localizer) -> String {
        words.locale.localizedString(forRegionCode: country.code) ?? country.name
    }

    /// The ways for the country `code` (the ones that work anywhere for none, or one not in the list), best first.
    static func ways(for code: String, _ words: Localizer) -> [Way] {
        var ways: [Way] = []
        let country = countries.first { $0.code == code }
        let name = country.map { Self.name($0, words) } ?? ""
        if let country, let sd = country.schedulesDirect {
            ways.append(Way(title: "Schedules Direct", cost: words("$35 a year (a 7-day trial)"),
                            detail: words("Cable, satellite and antenna lineups for {country}, about 20 days ahead, with episode details.", ["country": name]),
                            link: SitePath.schedulesDirect(query: "country=\(sd)"), action: words("Sign in to Schedules Direct")))
        }
        if let country, !country.grabbers.isEmpty {
            ways.append(Way(title: words("An XMLTV grabber"),
                            cost: country.grabbers == ["tv_grab_na_tvmedia"] ? words("free (xmltv-util; XMLTVListings.com is paid)")
                                : words("free (xmltv-util; it reads public listings sites)"),
                            detail: words("The XMLTV project's {grabbers} for {country}, run by tvguide on its schedule.",
                                          ["grabbers": country.grabbers.joined(separator: ", "), "country": name]),
                            link: SitePath.grabbers(), action: words("Choose a grabber")))
        }
        ways.append(Way(title: words("Your own boxes"), cost: words("free"),
                        detail: words("The guide your Tvheadend server or HDHomeRun tuner already has: its address (and Tvheadend's password) is all it takes."),
                        link: SitePath.boxes(), action: words("Use a box's guide")))
        if let country, country.tvmaze {
            ways.append(Way(title: "TVmaze", cost: words("free"),
                            detail: words("The main networks' prime-time schedules for {country} (not every channel, no overnight).", ["country": name]),
                            link: SitePath.sources(), action: words("Add a TVmaze schedule (format TVmaze, location {code})", ["code": country.code])))
        }
        ways.append(Way(title: words("An XMLTV file or address"), cost: words("as its provider says"),
                        detail: words("An IPTV provider's guide, or one made by another program: a file on this machine or an http(s) address, plain or gzip."),
                        link: SitePath.sources(), action: words("Add it as a source")))
        ways[0].isFirst = true
        return ways
    }
}
