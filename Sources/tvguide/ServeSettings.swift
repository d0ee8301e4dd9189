import Configuration
import Foundation
import GuideApplication
import GuideCore
import GuideDevices
import GuideHTTP
import GuideIngest
import GuideReminders
import GuideServer
import SchedulesDirect

/// Everything `serve` is told, read from the settings' layers (flags, environment, configuration file) and checked:
/// a value that cannot work is a CLIFailure naming the setting, before anything starts.
struct ServeSettings: Sendable {
    enum LogFormat: String, CaseIterable, Sendable {
        case text, json
    }

    var store: StoreLocation
    var tvmazeBase: String
    /// Schedules Direct's JSON API (`schedules-direct-url`; tests name a stand-in).
    var schedulesDirectBase: String
    var host = "127.0.0.1"
    var port = 8080
    var dayStart = 5
    var pretendNow: Date?
    var trustedProxies: [String] = []
    var publicURL: String?
    var mail: SMTPSettings?
    var metrics: ServerSettings.MetricsAccess = .loopback
    var logFormat: LogFormat = .text
    var offlineDays = 3
    var insecureCookies = false
    /// Where viewers', guests' and listings' addresses may lead beyond the public internet (`allowed-hosts`).
    var outbound = OutboundPolicy.external
    /// Certificates trusted for those addresses' https besides the system's (`outbound-ca`): a LAN's own authority.
    var outboundCA: TrustedCertificates?
    var outboundCAFile: String?
    /// Where the first run's setup code is written (0600) instead of the log (`setup-code-file`): the package's
    /// journal is readable by the adm group.
    var setupCodeFile: String?
    /// Silicondust's guide service for HDHomeRun sources (`hdhomerun-guide-url`; tests name a stand-in).
    var hdhomerunGuide: String
    /// Where XMLTV grabbers are found and how long one may run.
    var grabbers: GrabberSettings
    /// How the feeds' tuners are found on the network (`discovery`; `ssdp`, its old name, still read).
    var discovery = DeviceDiscovery()
    /// Home Assistant's MQTT broker (`home-assistant`: mqtt://USER@HOST, its password in $TVGUIDE_MQTT_PASSWORD).
    var homeAssistant: MQTTSettings?
    /// The profile Home Assistant's commands and events are for (`home-assistant-profile`); none: sensors only.
    var homeAssistantProfile: String?

    init(_ layers: SettingsLayers, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        store = StoreLocation(layers)
        tvmazeBase = try TVMazeOptions.base(layers)
        schedulesDirectBase = try layers.address(.schedulesDirectURL, else: SchedulesDirectClient.defaultBase)
        grabbers = try GrabberSettings(layers)
        hdhomerunGuide = try layers.address(.hdhomerunGuideURL, else: HDHomeRunGuide.defaultBase)
        if let host = layers.string(.host) { self.host = host }
        port = try Self.integer(layers, .port, in: 1...65_535) ?? port
        dayStart = try Self.integer(layers, .dayStart, in: 0...23) ?? dayStart
        offlineDays = try Self.integer(layers, .offlineDays, in: 1...7) ?? offlineDays
        if let text = layers.string(.pretendNow) {
            guard let time = CivilTime.parseISO8601(text) else {
                throw Self.failure(.pretendNow, text, saying: "{key} \"{value}\" ({origin}) is not a time: use ISO 8601, like 2026-02-15T20:00:00Z")
            }
            pretendNow = time
        }
        trustedProxies = layers.strings(.trustedProxy)
        for proxy in trustedProxies where !GuideServer.isIPAddress(proxy) {
            throw Self.failure(.trustedProxy, proxy, saying: "{key} \"{value}\" ({origin}) is not an IP address (like 127.0.0.1 or ::1)")
        }
        publicURL = layers.string(.publicURL)
        if let publicURL, URL(string: publicURL)?.scheme.map({ ["http", "https"].contains($0.lowercased()) }) != true {
            throw Self.failure(.publicURL, publicURL, saying: "{key} \"{value}\" ({origin}) is not an http or https address")
        }
        metrics = try Self.choice(layers, .metrics) ?? metrics
        logFormat = try Self.choice(layers, .logFormat) ?? logFormat
        if let text = layers.string(.insecureCookies) {
            switch text.lowercased() {
            case "true", "yes", "1": insecureCookies = true
            case "false", "no", "0": insecureCookies = false
            default: throw Self.failure(.insecureCookies, text, saying: "{key} \"{value}\" ({origin}) is not true or false")
            }
        }
        if let text = layers.string(.discovery) {
            guard let read = DeviceDiscovery(text) else {
                throw Self.failure(.discovery, text, saying: "{key} \"{value}\" ({origin}) is not off, on, or ssdp:PORT and hdhomerun:PORT")
            }
            discovery = read
        } else if let text = layers.string(.ssdp) {
            guard let read = DeviceDiscovery(legacy: text) else {
                throw Self.failure(.ssdp, text, saying: "{key} \"{value}\" ({origin}) is not off, on or a UDP port")
            }
            discovery = read
        }
        if let text = layers.string(.homeAssistantProfile) {
            let name = text.trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(name.count) else {
                throw Self.failure(.homeAssistantProfile, text, saying: "{key} \"{value}\" ({origin}) is not a profile's name (1 to 200 characters)")
            }
            homeAssistantProfile = name
        }
        if let text = layers.string(.homeAssistant) {
            switch MQTTSettings.parse(text, password: environment["TVGUIDE_MQTT_PASSWORD"]) {
            case .success(let broker): homeAssistant = broker
            case .failure(let failure):
                throw Self.failure(.homeAssistant, text, saying: "{key} \"{value}\" ({origin}): {error}", ["error": failure.description])
            }
        }
        mail = try Self.mailSettings(layers, password: environment["TVGUIDE_SMTP_PASSWORD"])
        let allowed = layers.strings(.allowedHosts)
        do {
            outbound = try OutboundPolicy(parsing: allowed.joined(separator: ","))
        } catch {
            throw Self.failure(.allowedHosts, allowed.joined(separator: ", "), saying: "{key} \"{value}\" ({origin}): {error}", ["error": error.description])
        }
        setupCodeFile = layers.string(.setupCodeFile)
        if let file = layers.string(.outboundCA) {
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8), let trusted = try? TrustedCertificates(pem: pem) else {
                throw Self.failure(.outboundCA, file, saying: "{key} \"{value}\" ({origin}) cannot be read as PEM certificates")
            }
            (outboundCA, outboundCAFile) = (trusted, file)
        }
    }

    /// Each setting's value as the file would write it (the SMTP password, which only the environment gives, is not
    /// among them).
    func written(_ key: SettingKey) -> String {
        switch key {
        case .database: store.described
        case .host: host
        case .port: String(port)
        case .dayStart: String(dayStart)
        case .pretendNow: pretendNow.map { $0.formatted(.iso8601) } ?? ""
        case .trustedProxy: trustedProxies.joined(separator: ", ")
        case .publicURL: publicURL ?? ""
        case .tvmazeURL: tvmazeBase
        case .schedulesDirectURL: schedulesDirectBase
        case .smtp: mail.map { "\($0.security) \($0.host):\($0.port)" } ?? ""
        case .smtpFrom: mail?.from ?? ""
        case .smtpCA: mail?.trustedCertificates == nil ? "" : "(read)"
        case .metrics: metrics.rawValue
        case .logFormat: logFormat.rawValue
        case .offlineDays: String(offlineDays)
        case .insecureCookies: String(insecureCookies)
        case .allowedHosts: outbound.written
        case .outboundCA: outboundCAFile ?? ""
        case .setupCodeFile: setupCodeFile ?? ""
        case .hdhomerunGuideURL: hdhomerunGuide
        case .grabberPath: grabbers.directories.joined(separator: ", ")
        case .grabberMinutes: String(grabbers.minutes)
        case .discovery: discovery.written
        case .ssdp: "(read as discovery)"
        case .homeAssistantProfile: homeAssistantProfile ?? ""
        case .homeAssistant: homeAssistant.map { "\($0.tls ? "mqtts" : "mqtt")://\($0.username.map { $0 + "@" } ?? "")\($0.host):\($0.port)" } ?? ""
        }
    }

    /// Who push services may contact about this server (VAPID's subject): the guide's https address, else the
    /// e-mail reminders' sender.
    var pushContact: String {
        if let publicURL, publicURL.lowercased().hasPrefix("https://") { return publicURL }
        return "mailto:" + (mail?.from ?? "tvguide@localhost")
    }

    /// The SMTP server for e-mail reminders, if one is set up.
    private static func mailSettings(_ layers: SettingsLayers, password: String?) throws -> SMTPSettings? {
        let from = layers.string(.smtpFrom)
        guard let smtp = layers.string(.smtp) else {
            if from != nil { throw CLIFailure(Output.words("smtp-from needs smtp, the server e-mail reminders go through")) }
            return nil
        }
        guard let from else { throw CLIFailure(Output.words("smtp needs smtp-from, the address reminders come from")) }
        switch SMTPSettings.parse(smtp, from: from, password: password) {
        case .failure(let failure): throw CLIFailure("smtp: " + failure.sentence.worded(Output.words))
        case .success(var settings):
            if let file = layers.string(.smtpCA) {
                guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw CLIFailure(Output.words("smtp-ca: cannot read {file}", ["file": file]))
                }
                settings.trustedCertificates = pem
            }
            return settings
        }
    }

    private static func integer(_ layers: SettingsLayers, _ key: SettingKey, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = layers.string(key) else { return nil }
        guard let value = Bounded.integer(text, in: range) else {
            throw failure(key, text, saying: "{key} \"{value}\" ({origin}) is not a number from {low} to {high}",
                          ["low": String(range.lowerBound), "high": String(range.upperBound)])
        }
        return value
    }

    private static func choice<T: RawRepresentable & CaseIterable>(_ layers: SettingsLayers, _ key: SettingKey) throws -> T?
    where T.RawValue == String {
        guard let text = layers.string(key) else { return nil }
        guard let value = T(rawValue: text.lowercased()) else {
            throw failure(key, text, saying: "{key} \"{value}\" ({origin}) is not one of {choices}",
                          ["choices": T.allCases.map(\.rawValue).joined(separator: ", ")])
        }
        return value
    }

    /// "port "abc" (from --port, TVGUIDE_PORT or the configuration file) is not a number from 1 to 65535", in the
    /// terminal's language: `problem` is the whole sentence, with {key}, {value} and {origin} filled here.
    static func failure(_ key: SettingKey, _ value: String, saying problem: String, _ values: [String: String] = [:]) -> CLIFailure {
        let words = Output.words
        let origin = words("from --{key}, {variable} or the configuration file", ["key": key.rawValue, "variable": key.environmentVariable])
        return CLIFailure(words(problem, values: values.merging(["key": key.rawValue, "value": String(value.prefix(200)), "origin": origin]) { $1 }))
    }
}

/// How the feeds' tuners are found on the local network (`discovery`): SSDP's searches (Plex, Jellyfin) on UDP 1900 and
/// HDHomeRun's own discovery (Plex, Channels DVR, Emby, libhdhomerun's tools) on UDP 65001; `off` (the default), `on`
/// for both on their ports, or `ssdp:PORT,hdhomerun:PORT` (either, or both, on other ports: tests).
struct DeviceDiscovery: Equatable {
    var ssdpPort: Int?
    var hdhomerunPort: Int?

    init(ssdpPort: Int? = nil, hdhomerunPort: Int? = nil) {
        (self.ssdpPort, self.hdhomerunPort) = (ssdpPort, hdhomerunPort)
    }

    init?(_ text: String) {
        switch text.lowercased().trimmingCharacters(in: .whitespaces) {
        case "off", "false", "no", "0": self.init()
        case "on", "true", "yes": self.init(ssdpPort: 1900, hdhomerunPort: HDHomeRunDiscovery.standardPort)
        default:
            self.init()
            for item in text.lowercased().split(separator: ",", omittingEmptySubsequences: false).prefix(3) {
                let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let port: Int = Bounded.integer(parts[1], in: 1...65_535) else { return nil }
                switch parts[0] {
                case "ssdp" where ssdpPort == nil: ssdpPort = port
                case "hdhomerun" where hdhomerunPort == nil: hdhomerunPort = port
                default: return nil
                }
            }
            if ssdpPort == nil && hdhomerunPort == nil { return nil }
        }
    }

    /// The old `ssdp` setting: `on` turns discovery on (both ways, as the one setting now does), a port is SSDP's alone.
    init?(legacy text: String) {
        if let read = DeviceDiscovery(text), !text.contains(":") {
            self = read
        } else if let port: Int = Bounded.integer(text, in: 1...65_535) {
            self.init(ssdpPort: port)
        } else {
            return nil
        }
    }

    var written: String {
        if self == DeviceDiscovery() { return "off" }
        if self == DeviceDiscovery("on") { return "on" }
        return [ssdpPort.map { "ssdp:\($0)" }, hdhomerunPort.map { "hdhomerun:\($0)" }].compactMap { $0 }.joined(separator: ",")
    }
}
