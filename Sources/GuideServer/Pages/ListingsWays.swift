import Foundation

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

    /// The countries the picker offers: those with a way besides a file of one's own, by name.
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

    /// The ways for the country `code` (the ones that work anywhere for none, or one not in the list), best first.
    static func ways(for code: String) -> [Way] {
        var ways: [Way] = []
        let country = countries.first { $0.code == code }
        if let country, let sd = country.schedulesDirect {
            ways.append(Way(title: "Schedules Direct", cost: "$35 a year (a 7-day trial)",
                            detail: "Cable, satellite and antenna lineups for \(country.name), about 20 days ahead, with episode details.",
                            link: SitePath.schedulesDirect(query: "country=\(sd)"), action: "Sign in to Schedules Direct"))
        }
        if let country, !country.grabbers.isEmpty {
            ways.append(Way(title: "An XMLTV grabber", cost: "free (xmltv-util; " + (country.grabbers == ["tv_grab_na_tvmedia"] ? "XMLTVListings.com is paid)" : "it reads public listings sites)"),
                            detail: "The XMLTV project's \(country.grabbers.joined(separator: ", ")) for \(country.name), run by tvguide on its schedule.",
                            link: SitePath.grabbers(), action: "Choose a grabber"))
        }
        ways.append(Way(title: "Your own boxes", cost: "free",
                        detail: "The guide your Tvheadend server or HDHomeRun tuner already has: its address (and Tvheadend's password) is all it takes.",
                        link: SitePath.boxes(), action: "Use a box's guide"))
        if let country, country.tvmaze {
            ways.append(Way(title: "TVmaze", cost: "free",
                            detail: "The main networks' prime-time schedules for \(country.name) (not every channel, no overnight).",
                            link: SitePath.sources(), action: "Add a TVmaze schedule (format TVmaze, location \(country.code))"))
        }
        ways.append(Way(title: "An XMLTV file or address", cost: "as its provider says",
                        detail: "An IPTV provider's guide, or one made by another program: a file on this machine or an http(s) address, plain or gzip.",
                        link: SitePath.sources(), action: "Add it as a source"))
        ways[0].isFirst = true
        return ways
    }
}
