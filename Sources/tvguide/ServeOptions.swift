import ArgumentParser
import Configuration

/// `serve`'s options, as flags: each is also a configuration file key and an environment variable (SettingKey), and
/// unset here unless given, so the layers below it show through.
struct ServeOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @OptionGroup var tvmaze: TVMazeOptions

    @Option(help: .words("The address to listen on; 0.0.0.0 for every interface (default: 127.0.0.1).", valueName: "host"))
    var host: String?

    @Option(help: .words("The port to listen on (default: 8080).", valueName: "port"))
    var port: String?

    @Option(help: .words("The hour a guide day starts for guests; profiles choose their own (default: 5).", valueName: "hour"))
    var dayStart: String?

    @Option(help: .words("Show the guide as if it were this instant (ISO 8601), for exploring listings from another week; the clock runs on from there.",
                               valueName: "time"))
    var pretendNow: String?

    @Option(name: .customLong("trusted-proxy"), parsing: .singleValue,
            help: .words("A reverse proxy in front of tvguide (its address, e.g. 127.0.0.1): only its X-Forwarded-For header names the client, which sign-in throttling counts by. Repeat for several.", valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("allowed-hosts"), parsing: .singleValue,
            help: .words("Where webhooks, ntfy, push and logos may lead besides the public internet: private (a home's LAN), loopback, a host (ha.lan), an address with or without a port (192.168.1.10:8123), or * for anywhere. Repeat for several.", valueName: "host"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("outbound-ca"),
            help: .words("A PEM file of certificates trusted, besides the system's, for https to those hosts (a LAN's own authority).", valueName: "file"))
    var outboundCA: String?

    @Option(name: .customLong("setup-code-file"),
            help: .words("Write the first run's setup code to this file (readable by this user only) instead of the log.", valueName: "file"))
    var setupCodeFile: String?

    @Option(name: .customLong("schedules-direct-url"),
            help: .words("Schedules Direct's JSON API (default: its own; tests name a stand-in).", valueName: "url"))
    var schedulesDirectURL: String?

    @Option(name: .customLong("hdhomerun-guide-url"),
            help: .words("Silicondust's guide service for HDHomeRun sources (default: its own; tests name a stand-in).", valueName: "url"))
    var hdhomerunGuideURL: String?

    @Option(name: .customLong("grabber-path"), parsing: .singleValue,
            help: .words("A folder XMLTV grabbers (tv_grab_*) are found in; repeat for several (default: the folders of PATH).", valueName: "folder"))
    var grabberPath: [String] = []

    @Option(name: .customLong("grabber-minutes"),
            help: .words("How long an XMLTV grabber may run before it is stopped, 1-1440 minutes (default: 30).", valueName: "minutes"))
    var grabberMinutes: String?

    @Option(name: .customLong("public-url"),
            help: .words("The address people open this guide at (e.g. https://tv.example.org), for links in reminders, the calendar feed's address and logos in media servers' feeds.", valueName: "url"))
    var publicURL: String?

    @Option(help: .words("An SMTP server for e-mail reminders: smtp://USER@HOST[:587] (STARTTLS), smtps://USER@HOST[:465], or smtp+plain://127.0.0.1:PORT for a local relay; its password in $TVGUIDE_SMTP_PASSWORD.", valueName: "url"))
    var smtp: String?

    @Option(name: .customLong("smtp-from"), help: .words("The address e-mail reminders come from.", valueName: "address"))
    var smtpFrom: String?

    @Option(name: .customLong("smtp-ca"), help: .words("PEM certificates to trust for the SMTP server instead of the system's.", valueName: "file"))
    var smtpCA: String?

    @Option(help: .words("Who may read Prometheus metrics at /metrics: off, loopback (this machine only), or token (an API token as Authorization: Bearer) (default: loopback).",
                               valueName: "access"))
    var metrics: String?

    @Option(name: .customLong("log-format"),
            help: .words("How log lines look on standard error: text, or json (one object a line, with each request's id) (default: text).", valueName: "format"))
    var logFormat: String?

    @Option(name: .customLong("offline-days"),
            help: .words("How many days of listings, from today, an installed guide keeps for use offline, 1-7 (default: 3).", valueName: "days"))
    var offlineDays: String?

    @Option(help: .words("Let Plex, Jellyfin, Channels DVR and HDHomeRun's own tools find the feeds' tuner ports on the local network, as they find HDHomeRun tuners: off, on (SSDP on UDP port 1900 and HDHomeRun discovery on UDP port 65001), or ssdp:PORT,hdhomerun:PORT (default: off).", valueName: "off|on|ports"))
    var discovery: String?

    @Option(help: ArgumentHelp(Output.words("The old name of --discovery: on, off, or SSDP's port."), visibility: .hidden))
    var ssdp: String?

    @Option(name: .customLong("home-assistant"),
            help: .words("Home Assistant's MQTT broker, for a sensor per favourite channel, reminder events and commands: mqtt://[USER@]HOST[:1883] or mqtts://...; its password in $TVGUIDE_MQTT_PASSWORD.", valueName: "url"))
    var homeAssistant: String?

    @Option(name: .customLong("home-assistant-profile"),
            help: .words("The profile Home Assistant acts for: its commands set that profile's reminders and recordings, its events are that profile's reminders. Without it, Home Assistant gets the sensors only.", valueName: "name"))
    var homeAssistantProfile: String?

    @Flag(help: .words("Send cookies without Secure, for plain http beyond this machine (a home network without TLS). Browsers keep Secure cookies on https and on 127.0.0.1/localhost."))
    var insecureCookies = false

    /// The settings given as flags, the top layer; every value is checked with the others' (ServeSettings).
    private var flags: [SettingKey: ConfigContent] {
        var flags = tvmaze.flags
        let given: [(SettingKey, String?)] = [(.host, host), (.port, port), (.dayStart, dayStart), (.pretendNow, pretendNow),
                                              (.publicURL, publicURL), (.smtp, smtp), (.smtpFrom, smtpFrom), (.smtpCA, smtpCA),
                                              (.metrics, metrics), (.logFormat, logFormat), (.offlineDays, offlineDays),
                                              (.insecureCookies, insecureCookies ? "true" : nil),
                                              (.outboundCA, outboundCA), (.setupCodeFile, setupCodeFile),
                                              (.grabberMinutes, grabberMinutes), (.schedulesDirectURL, schedulesDirectURL),
                                              (.hdhomerunGuideURL, hdhomerunGuideURL), (.discovery, discovery), (.ssdp, ssdp),
                                              (.homeAssistant, homeAssistant), (.homeAssistantProfile, homeAssistantProfile)]
        for case let (key, value?) in given { flags[key] = .string(value) }
        if !trustedProxies.isEmpty { flags[.trustedProxy] = .stringArray(trustedProxies) }
        if !allowedHosts.isEmpty { flags[.allowedHosts] = .stringArray(allowedHosts) }
        if !grabberPath.isEmpty { flags[.grabberPath] = .stringArray(grabberPath) }
        return flags
    }

    /// The settings' layers, these flags on top.
    func layers() async throws -> SettingsLayers {
        try await store.settings(flags: flags)
    }

    /// The settings, over every layer.
    func settings() async throws -> ServeSettings {
        try ServeSettings(try await layers())
    }
}
