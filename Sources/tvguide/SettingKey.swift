import Foundation

/// A setting tvguide reads from its layers: named as the flag (`--day-start`), the configuration file's key
/// (`day-start = 5`) and the environment variable (`TVGUIDE_DAY_START`).
enum SettingKey: String, CaseIterable, Sendable {
    case database, host, port
    case dayStart = "day-start"
    case pretendNow = "pretend-now"
    case trustedProxy = "trusted-proxy"
    case publicURL = "public-url"
    case tvmazeURL = "tvmaze-url"
    case schedulesDirectURL = "schedules-direct-url"
    case smtp
    case smtpFrom = "smtp-from"
    case smtpCA = "smtp-ca"
    case metrics
    case logFormat = "log-format"
    case offlineDays = "offline-days"
    case insecureCookies = "insecure-cookies"
    case allowedHosts = "allowed-hosts"
    case outboundCA = "outbound-ca"
    case setupCodeFile = "setup-code-file"
    case hdhomerunGuideURL = "hdhomerun-guide-url"
    case grabberPath = "grabber-path"
    case grabberMinutes = "grabber-minutes"
    case discovery
    /// The name `discovery` had when it answered SSDP only; still read (`on`, `off`, or SSDP's port).
    case ssdp
    case homeAssistant = "home-assistant"
    case homeAssistantProfile = "home-assistant-profile"

    /// Whether it is an old name still read for a newer one (shown only when set).
    var isOldName: Bool { self == .ssdp }

    /// Whether it takes several values (comma-separated in the file and the environment, repeated as a flag).
    var isList: Bool { self == .trustedProxy || self == .allowedHosts || self == .grabberPath }

    /// Its environment variable, as swift-configuration's environment provider names it under the `tvguide` prefix.
    var environmentVariable: String { "TVGUIDE_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_") }
}
