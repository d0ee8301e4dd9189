import Hummingbird

/// The guide laid out for a television browser and its remote: larger type, a focus that is always visible and never
/// lost, OK and Back as the remote has them (guide.css and grid-navigation.js under `html.tv`). On with `?tv=1` (kept
/// in a cookie until `?tv=0`), and by itself for the user agents of television browsers.
enum TVMode {
    static let cookie = "tv"

    /// What the address asks for: `?tv=1` on, `?tv=0` off, else nil.
    static func asked(_ request: Request) -> Bool? {
        switch request.uri.queryParameters.get("tv") {
        case "1"?: true
        case "0"?: false
        default: nil
        }
    }

    /// On by the cookie, else by a television's user agent.
    static func isOn(_ request: Request) -> Bool {
        if let kept = request.cookies[cookie]?.value { return kept == "1" }
        return request.headers[.userAgent].map(isTelevision) ?? false
    }

    /// The words television browsers put in their user agents: LG webOS, Samsung Tizen, HbbTV, Sony BRAVIA, Philips
    /// and others' NetTV, Panasonic Viera, Amazon's Fire TV (AFT), Google and Android TV, Chromecast, Apple TV.
    static let televisions = ["smart-tv", "smarttv", "web0s", "webos", "tizen", "hbbtv", "bravia", "nettv", "netcast", "viera",
                              "aftb", "aftm", "afts", "aftt", "aftka", "googletv", "android tv", "; tv)", "crkey", "appletv", "roku"]

    static func isTelevision(_ agent: String) -> Bool {
        let text = agent.prefix(512).lowercased()
        return televisions.contains { text.contains($0) }
    }
}
