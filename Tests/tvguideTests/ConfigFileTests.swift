import Foundation
import GuideCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreTestSupport
import TestReceivers
import Testing

/// The configuration file and its layers: flags over environment variables over the file over defaults; a file that
/// names an unknown key, sets one twice, or gives a value serve cannot use is refused with the key and line.
@Suite struct ConfigFileTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `config show`'s lines as key -> (value, where from).
    static func shown(_ output: String) -> [String: (value: String, origin: String)] {
        var settings: [String: (value: String, origin: String)] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.range(of: " = "), let hash = line.range(of: "  # ", options: .backwards) else { continue }
            settings[String(line[..<equals.lowerBound])] = (String(line[equals.upperBound..<hash.lowerBound]), String(line[hash.upperBound...]))
        }
        return settings
    }

    @Test func flagsOverrideTheEnvironmentWhichOverridesTheFile() async throws {
        let path = try Self.file("""
            # tvguide's settings
            host = 0.0.0.0
            port = 8099
            day-start = 6
            offline-days = "4"
            trusted-proxy = 10.0.0.1, ::1
            metrics = token

            database = /var/lib/tvguide/guide.sqlite
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        var cli = CLI()
        // An empty variable is an unset one: the file's database shows through.
        cli.environment = ["TVGUIDE_PORT": "8100", "TVGUIDE_DAY_START": "7", "TVGUIDE_DATABASE": ""]
        let result = try await cli.run("config", "show", "--config", path, "--day-start", "8", "--log-format", "json")
        #expect(result.status == 0, "\(result)")
        let settings = Self.shown(result.stdout)
        #expect(settings["host"]?.value == "0.0.0.0" && settings["host"]?.origin == "file \(path)")
        #expect(settings["port"]?.value == "8100" && settings["port"]?.origin == "environment TVGUIDE_PORT")
        #expect(settings["day-start"]?.value == "8" && settings["day-start"]?.origin == "flag")
        #expect(settings["offline-days"]?.value == "4")
        #expect(settings["trusted-proxy"]?.value == "10.0.0.1, ::1")
        #expect(settings["metrics"]?.value == "token")
        #expect(settings["log-format"]?.value == "json" && settings["log-format"]?.origin == "flag")
        #expect(settings["database"]?.value == "/var/lib/tvguide/guide.sqlite")
        #expect(settings["tvmaze-url"]?.value == "https://api.tvmaze.com" && settings["tvmaze-url"]?.origin == "default")
        #expect(settings["insecure-cookies"]?.value == "false")

        // $TVGUIDE_CONFIG names the file when --config does not; a repeated flag replaces the file's whole list.
        cli.environment = ["TVGUIDE_CONFIG": path]
        let named = Self.shown(try await cli.run("config", "show", "--trusted-proxy", "192.168.1.1").stdout)
        #expect(named["host"]?.value == "0.0.0.0")
        #expect(named["trusted-proxy"]?.value == "192.168.1.1" && named["trusted-proxy"]?.origin == "flag")
        // Every command reads the database from the layers: here the environment's, over the file's.
        #expect(named["database"]?.value == cli.database || TestDatabase.postgres != nil)
        // "none" leaves every file out, the named one and the default.
        let none = Self.shown(try await cli.run("config", "show", "--config", "none").stdout)
        #expect(none["host"]?.value == "127.0.0.1" && none["host"]?.origin == "default")
    }

    /// serve itself listens where the file says, and a value from the environment that does not parse stops it with
    /// the setting's name before anything starts.
    @Test func serveListensOnTheFilesPort() async throws {
        let port = Self.listeningPort()
        let path = try Self.file("port = \(port)\nhost = 127.0.0.1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        var cli = CLI()
        let server = cli.launch(["serve", "--config", path])
        defer { server.end() }
        let answered = try await Self.answers(port: port)
        #expect(answered, "serve never answered on the file's port \(port)")
        server.signal(SIGTERM)
        _ = await server.exited()

        cli.environment = ["TVGUIDE_OFFLINE_DAYS": "99999999999999999999999"]
        let refused = try await cli.run("serve", "--config", path)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("offline-days \"99999999999999999999999\"") && refused.stderr.contains("from 1 to 7"), "\(refused)")
    }

    /// With `setup-code-file` (the package sets it), the first run's code goes to a file only serve's user may read,
    /// made anew (a link left by that name is replaced, not followed), and not to the log the adm group reads.
    @Test func theSetupCodeGoesToAFileOnlyServesUserReads() async throws {
        let port = Self.listeningPort()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-setup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Test scratch folder.
        try "precious".write(toFile: folder + "/precious", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/setup-code", withDestinationPath: folder + "/precious")
        let path = try Self.file("port = \(port)\nsetup-code-file = \(folder)/setup-code\n")
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        let server = CLI().launch(["serve", "--config", path])
        defer { server.end() }
        let answered = try await Self.answers(port: port)
        #expect(answered)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/setup-code")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular && attributes[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: folder + "/setup-code", encoding: .utf8).wholeMatch(of: /[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}\n/) != nil)
        #expect(try String(contentsOfFile: folder + "/precious", encoding: .utf8) == "precious")
        server.signal(SIGTERM)
        _ = await server.exited()
    }

    /// Whether serve answers /healthz on `port` within a minute.
    /// Whether serve answers on `port` within 3 minutes: a first start imports the sample listings before it listens,
    /// which on PostgreSQL beside the rest of the suite on 2 cores took over a minute once.
    /// A port for serve below the kernel's ephemeral range (32768-60999 here), which the tests' own outgoing
    /// connections take: one of them held a port drawn from 20000-39999 once, and serve could not listen on it.
    static func listeningPort() -> Int { 20_000 + Int.random(in: 0..<12_000) }

    static func answers(port: Int) async throws -> Bool {
        let health = try #require(URL(string: "http://127.0.0.1:\(port)/healthz"))
        for _ in 0..<900 {
            try await Task.sleep(for: .milliseconds(200))
            // Not listening yet is an error here, and the reason to ask again.
            if let (_, response) = try? await URLSession.shared.data(from: health), (response as? HTTPURLResponse)?.statusCode == 200 {
                return true
            }
        }
        return false
    }

    @Test(arguments: [
        ("prot = 8080\n", "line 1: unknown key \"prot\" (did you mean port?)"),
        ("# fine\nport = 1\nport = 2\n", "line 3: port is set a second time"),
        ("port 8080\n", "line 1: \"port 8080\" is not a setting"),
        ("host =\n", "line 1: host has no value"),
        ("colour = blue\n", "unknown key \"colour\"; the keys are allowed-hosts, database, day-start"),
        ("port = 65536\n", "port \"65536\""),
        ("port = -9223372036854775808\n", "is not a number from 1 to 65535"),
        ("day-start = 1e308\n", "day-start \"1e308\""),
        ("offline-days = 9223372036854775807\n", "is not a number from 1 to 7"),
        ("offline-days = -1\n", "offline-days \"-1\""),
        ("port = nan\n", "port \"nan\""),
        ("metrics = everyone\n", "is not one of off, loopback, token"),
        ("trusted-proxy = proxy.example\n", "trusted-proxy \"proxy.example\""),
        ("public-url = ftp://x\n", "is not an http or https address"),
        ("insecure-cookies = maybe\n", "is not true or false"),
        ("smtp-from = tv@example.org\n", "smtp-from needs smtp"),
        ("pretend-now = yesterday\n", "is not a time"),
        ("tvmaze-url = nowhere\n", "tvmaze-url \"nowhere\""),
        ("discovery = hdhomerun:0\n", "is not off, on, or ssdp:PORT and hdhomerun:PORT"),
        ("discovery = ssdp:1900,ssdp:1901\n", "discovery \"ssdp:1900,ssdp:1901\""),
        ("discovery = upnp:1900\n", "discovery \"upnp:1900\""),
        ("ssdp = 70000\n", "is not off, on or a UDP port"),
        ("discovery = ssdp:9223372036854775807\n", "discovery \"ssdp:9223372036854775807\""),
        ("discovery = hdhomerun:-1\n", "discovery \"hdhomerun:-1\""),
        ("discovery = ssdp:1e308\n", "discovery \"ssdp:1e308\""),
        ("discovery = ssdp:nan\n", "discovery \"ssdp:nan\""),
        ("ssdp = 9223372036854775807\n", "is not off, on or a UDP port"),
    ])
    func checkRefusesABadFileNamingWhy(text: String, message: String) async throws {
        let path = try Self.file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        let result = try await CLI().run("config", "check", path)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        // serve refuses the same file the same way, and so does every command that reads the database from it.
        let serve = try await CLI().run("serve", "--config", path)
        #expect(serve.status != 0 && serve.stderr.contains(message), "\(serve.stderr)")
    }

    /// The diagnostics are the terminal's language; keys, values and the file's name stay as written.
    @Test func theDiagnosticsSpeakTheTerminalsLanguage() async throws {
        let path = try Self.file("prot = 8080\n")
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        var cli = CLI()
        cli.environment = ["LANG": "de_DE.UTF-8"]
        let unknown = try await cli.run("config", "check", path)
        #expect(unknown.status != 0 && unknown.stderr.contains("Zeile 1: unbekannter Schlüssel \"prot\" (war port gemeint?)"), "\(unknown.stderr)")
        // Where each setting comes from, in German; the keys and the variable's name as written.
        let shown = try await cli.run("config", "show", "--config", "none", "--day-start", "8").stdout
        #expect(shown.contains("day-start = 8  # Option") && shown.contains("port = 8080  # Vorgabe"), "\(shown)")
        cli.environment = ["LANG": "fr_FR.UTF-8"]
        let port = try await cli.run("serve", "--port", "99999999999999999999")
        #expect(port.status != 0 && port.stderr.contains(
            "port \"99999999999999999999\" (de --port, TVGUIDE_PORT ou du fichier de configuration) n'est pas un nombre de 1 à 65535"),
                "\(port.stderr)")
    }

    /// The file the package installs as /etc/tvguide/tvguide.conf is one serve accepts.
    @Test func thePackagedFileIsValid() async throws {
        let packaged = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("packaging/tvguide.conf").path
        let result = try await CLI().run("config", "check", packaged)
        #expect(result.status == 0 && result.stdout.contains("valid; it sets database, host, port"), "\(result)")
    }

    @Test func checkAcceptsAGoodFileAndSaysWhatItSets() async throws {
        let path = try Self.file("# comment\n\nport = 8081\r\nsmtp = smtp+plain://127.0.0.1:2525\nsmtp-from = tv@example.org\n")
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        let result = try await CLI().run("config", "check", path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("valid; it sets port, smtp, smtp-from"), "\(result.stdout)")
        let missing = try await CLI().run("config", "check", "/nonexistent/tvguide.conf")
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/tvguide.conf does not exist"))
        let binary = try Self.file("")
        defer { try? FileManager.default.removeItem(atPath: binary) }  // Test scratch file.
        try Data([0xFF, 0xFE, 0x00, 0x70]).write(to: URL(fileURLWithPath: binary))
        #expect(try await CLI().run("config", "check", binary).stderr.contains("not UTF-8"))
    }

    /// One setting for how tuners are found (`discovery`): off, on (SSDP on 1900 and HDHomeRun's on 65001), or ports;
    /// its old name `ssdp` still read (on: both; a port: SSDP's alone), shown only when set.
    @Test func discoveryAndItsOldName() async throws {
        let cli = CLI()
        func shown(_ flags: String...) async throws -> [String: (value: String, origin: String)] {
            Self.shown(try await cli.run(arguments: ["config", "show", "--config", "none"] + flags).stdout)
        }
        let none = try await shown(), on = try await shown("--discovery", "on")
        #expect(none["discovery"]?.value == "off" && none["ssdp"] == nil && on["discovery"]?.value == "on")
        let ports = try await shown("--discovery", "hdhomerun:65010, ssdp:19000")
        #expect(ports["discovery"]?.value == "ssdp:19000,hdhomerun:65010")
        let oldOn = try await shown("--ssdp", "on")
        #expect(oldOn["discovery"]?.value == "on")
        let old = try await shown("--ssdp", "19001")
        #expect(old["discovery"]?.value == "ssdp:19001" && old["ssdp"]?.value == "(read as discovery)", "\(old)")
        let both = try await shown("--ssdp", "on", "--discovery", "off")
        #expect(both["discovery"]?.value == "off")
    }

    /// A newcomer's first run on a clock far from the sample's dates (issue 45, point 8): the bundled sample is moved by
    /// whole weeks to the one that holds now, so something is on now, on the same weekdays as the sample's.
    @Test func theSampleIsMovedToTheClocksWeek() async throws {
        let port = Self.listeningPort()
        var cli = CLI()
        // Monday 30 November 2026, 20:30 UTC: the sample's Monday 16 February, 41 weeks on.
        let server = cli.launch(["serve", "--host", "127.0.0.1", "--port", String(port), "--pretend-now", "2026-11-30T20:30:00Z"])
        defer { server.end() }
        #expect(try await Self.answers(port: port), "serve never answered on \(port)")
        server.signal(SIGTERM)
        _ = await server.exited()
        let now = try #require(try await cli.run("now", "--at", "2026-11-30T20:30:00Z", "--json").json() as? [[String: Any]])
        #expect(now.filter { $0["now"] is [String: Any] }.count > 100, "\(now.prefix(2))")
        // Inside the sample's own dates nothing moves (the browser tests' clock).
        cli = CLI()
        let inside = cli.launch(["serve", "--host", "127.0.0.1", "--port", String(port + 1), "--pretend-now", "2026-02-15T20:30:00Z"])
        defer { inside.end() }
        #expect(try await Self.answers(port: port + 1))
        inside.signal(SIGTERM)
        _ = await inside.exited()
        let then = try #require(try await cli.run("now", "--at", "2026-02-15T20:30:00Z", "--json").json() as? [[String: Any]])
        #expect(then.filter { $0["now"] is [String: Any] }.count > 100)
    }
}
