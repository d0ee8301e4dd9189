import Foundation
import GuideCore
import StoreTestSupport
import TestReceivers
import Testing

/// Runs the built `tvguide` binary as a user would, on a fresh database.
struct CLI {
    /// The run's own folder: the SQLite file, and the data folder (XDG_DATA_HOME).
    let folder = TestScratch.folder("tvguide-cli")
    /// TVGUIDE_DATABASE for every run: a file path, or a postgres:// address when the suite runs on PostgreSQL.
    let database: String
    /// More environment variables for every run (TVGUIDE_DATABASE, XDG_DATA_HOME, PATH and TZ are always set).
    var environment: [String: String] = [:]
    private var fullEnvironment: [String: String] {
        let always = ["TVGUIDE_DATABASE": database, "XDG_DATA_HOME": dataHome, "PATH": "/usr/bin:/bin", "TZ": "UTC"]
        return environment.merging(always) { given, _ in given }
    }
    /// Where the binary keeps a PostgreSQL database's own files (its exports, logos, grabbers' homes): in the run's
    /// folder, not the user's ~/.local/share.
    var dataHome: String { folder + "/data" }

    init() {
        database = TestDatabase.location(in: folder)
    }
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("tvguide").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("XMLTVTests/Fixtures")

    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String

        func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    }

    func run(_ arguments: String...) async throws -> Result {
        try await run(arguments: arguments)
    }

    /// Runs the binary with `input` on its standard input (nothing when nil). Awaiting it holds no thread: the binary
    /// may wait for a lock this process holds.
    func run(arguments: [String], input: String? = nil) async throws -> Result {
        let run = try await Program.run(Self.binary, arguments: arguments, environment: fullEnvironment, input: input.map { Array($0.utf8) })
        return Result(status: run.status, stdout: run.outputText, stderr: run.errorText)
    }

    /// Starts the binary without waiting for it, its output discarded: for a test that kills it.
    func launch(_ arguments: [String]) -> RunningProgram {
        RunningProgram(Self.binary, arguments: arguments, environment: fullEnvironment)
    }

    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }
}

@Suite struct CLITests {
    @Test func importPrintsOneJSONObjectWithCountsAndRepairs() async throws {
        let cli = CLI()
        let result = try await cli.run("import", "--json", CLI.fixture("ours/repairs.xml"))
        #expect(result.status == 0)
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["channels"] as? Int == 1)
        #expect(object["programmes"] as? Int == 6)
        let repairs = try #require(object["repairs"] as? [String: Int])
        #expect(repairs["duplicate"] == 1 && repairs["overlap"] == 1 && repairs["stop-from-next-start"] == 2)
        let issues = try #require(object["issues"] as? [[String: Any]])
        #expect(issues.contains { $0["kind"] as? String == "stop-before-start" && $0["line"] as? Int == 4 })
    }

    @Test func nowGivesEveryChannelWithNowAndNext() async throws {
        let cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("radiotimes/26.dat")).status == 0)
        let result = try await cli.run("now", "--at", "2011-03-10T20:10:00Z", "--json")
        let rows = try #require(try result.json() as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["channel"] as? String == "26")
        let now = try #require(rows[0]["now"] as? [String: Any])
        #expect(now["title"] as? String == "Emmerdale")
        #expect(now["start"] as? String == "2011-03-10T20:00:00Z")
        #expect(now["stop"] as? String == "2011-03-10T20:30:00Z")
        #expect((rows[0]["next"] as? [String: Any])?["title"] as? String == "Coronation Street")
    }

    @Test func searchListingsAndGrid() async throws {
        let cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("radiotimes/26.dat")).status == 0)
        let search = try #require(try await cli.run("search", "casino", "ROYALE", "--past", "--json").json() as? [[String: Any]])
        #expect(search.map { $0["start"] as? String } == ["2011-03-19T22:15:00Z", "2011-03-19T23:45:00Z"])
        // Without --past the search lists from now on, and 2011 is over.
        #expect((try await cli.run("search", "casino", "ROYALE", "--json").json() as? [[String: Any]])?.isEmpty == true)
        #expect(try await cli.run("search", "casino").stdout.contains("--past looks in what has aired too"))
        let day = try #require(try await cli.run("listings", "26", "--day", "2011-03-07", "--json").json() as? [[String: Any]])
        #expect(day.first?["title"] as? String == "Daybreak")
        #expect(day.allSatisfy { ($0["channel"] as? String) == "26" })
        let grid = try await cli.run("grid", "--day", "2011-03-10", "--from", "19:00", "--hours", "2", "--width", "100")
        let lines = grid.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        // Two hours over 81 columns: each half-hour programme gets about 20 columns, starting with '|'.
        let row = String(lines[1].dropFirst(19))
        #expect(row.filter { $0 == "|" }.count == 4)
        #expect(row.hasPrefix("|Emmerdale"))
    }

    @Test func nowAndGridListChannelsWithListingsFirst() async throws {
        // Given channel 26 with listings on 10 March 2011, and test.xml's two channels with none then
        let cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("peer-xmltv-tests/inputs/test.xml"), CLI.fixture("radiotimes/26.dat")).status == 0)
        // When asked what is on then, only the channel with listings is shown, and the rest are counted
        let now = try await cli.run("now", "--at", "2011-03-10T20:10:00Z")
        #expect(now.stdout.split(separator: "\n").count == 3)
        #expect(now.stdout.contains("now   20:00-20:30  Emmerdale"))
        #expect(now.stderr.contains("2 channels with nothing on now or next left out; --all lists them too."))
        // With --all every channel is listed, the one with listings first
        let all = try await cli.run("now", "--at", "2011-03-10T20:10:00Z", "--all", "--json")
        let rows = try #require(try all.json() as? [[String: Any]])
        #expect(rows.count == 3)
        #expect(rows.first?["channel"] as? String == "26")
        #expect(rows.dropFirst().allSatisfy { $0["now"] as? [String: Any] == nil && $0["next"] as? [String: Any] == nil })
        // The grid does the same
        let grid = try await cli.run("grid", "--day", "2011-03-10", "--from", "19:00", "--hours", "2", "--width", "100")
        #expect(grid.stdout.split(separator: "\n").count == 2)
        #expect(grid.stderr.contains("2 channels with nothing listed in these hours left out"))
        let wholeGrid = try await cli.run("grid", "--day", "2011-03-10", "--from", "19:00", "--hours", "2", "--width", "100", "--all")
        #expect(wholeGrid.stdout.split(separator: "\n").count == 4)
        #expect(wholeGrid.stdout.split(separator: "\n").dropFirst().first?.contains("|Emmerdale") == true)
    }

    @Test func theTerminalsLanguageAndFormatsComeFromItsLocale() async throws {
        // Given the same guide, and a terminal set to German (LANG), then to American English with LC_ALL over it
        var cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("peer-xmltv-tests/inputs/test.xml"), CLI.fixture("radiotimes/26.dat")).status == 0)
        cli.environment = ["LANG": "de_DE.UTF-8"]
        let german = try await cli.run("now", "--at", "2011-03-10T20:10:00Z")
        #expect(german.stdout.contains("  jetzt   20:00-20:30  Emmerdale"), "\(german.stdout)")
        #expect(german.stderr.contains("2 Sender ohne Sendung jetzt oder danach ausgelassen; --all listet sie mit."), "\(german.stderr)")
        let grid = try await cli.run("grid", "--day", "2011-03-10", "--from", "19:00", "--hours", "2", "--width", "100")
        #expect(grid.stdout.hasPrefix("Do. 10. März 2011"), "\(grid.stdout)")
        // Every command's sentences, counts, sizes and option errors, not only the listings'.
        let imported = try await cli.run("import", CLI.fixture("radiotimes/26.dat"))
        #expect(imported.stdout.contains("Der Guide enthält jetzt 3 Sender und"), "\(imported.stdout)")
        let added = try await cli.run("sources", "add", "feed", CLI.fixture("peer-xmltv-tests/inputs/test.xml"), "--interval", "1.5")
        #expect(added.stdout == "feed hinzugefügt. Jetzt abrufen mit: tvguide refresh feed\n", "\(added.stdout)\(added.stderr)")
        let listed = try await cli.run("sources", "list")
        #expect(listed.stdout.contains("feed  xmltv  Priorität 0  alle 1,5 h") && listed.stdout.contains("  nie aktualisiert\n  enthält 0 Sendungen"),
                "\(listed.stdout)")
        let refused = try await cli.run("sources", "add", "other", "other.xml", "--days", "99")
        #expect(refused.status != 0 && refused.stderr.contains("--days: eine ganze Zahl von 1 bis 30, nicht \"99\""), "\(refused.stderr)")
        #expect(try await cli.run("health").stdout.contains("feed: nie aktualisiert"))
        // A file that cannot be read says where and what in German; the reader's place and the element stay as written.
        let cut = cli.folder + "/cut.xml"
        try Data("<tv>\n<programme channel=\"a\" start=\"20110310200000 +0000\">".utf8).write(to: URL(fileURLWithPath: cut))
        let broken = try await cli.run("import", cut)
        #expect(broken.status != 0 && broken.stderr.contains("innerhalb eines <programme>, das in Zeile 2 beginnt; sie sieht abgeschnitten aus. "
                                                             + "Am Guide wurde nichts geändert."), "\(broken.stderr)")
        // A repair says what was wrong and what was done in German; --json keeps English for programs.
        try Data("<tv>\n<programme channel=\"a\" start=\"20110310200000 +0000\" stop=\"20110310203000 +0000\"></programme></tv>".utf8)
            .write(to: URL(fileURLWithPath: cut))
        let repaired = try await cli.run("import", cut)
        #expect(repaired.stdout.contains("Zeile 2: Sendung hat keinen Titel; mit leerem Titel behalten"), "\(repaired.stdout)")
        #expect(try await cli.run("import", cut, "--json").stdout.contains("programme has no title; kept with an empty one"))
        // A definition that cannot work, as a whole sentence with the source's name in it.
        let grabber = try await cli.run("sources", "add", "g", "tv_grab_../x", "--format", "grabber")
        #expect(grabber.status != 0 && grabber.stderr.contains("g: Nennen Sie einen auf dem Rechner installierten XMLTV-Grabber"), "\(grabber.stderr)")
        // Help: the command's and its options' words (argument-parser's own headings stay English).
        let help = try await cli.run("sources", "add", "--help").stdout
        #expect(help.hasPrefix("OVERVIEW: Eine Quelle hinzufügen.") && help.contains("Alle so vielen Stunden aktualisieren (Standard 12)."),
                "\(help)")
        cli.environment = ["LANG": "de_DE.UTF-8", "LC_ALL": "en_US.UTF-8"]
        let american = try await cli.run("now", "--at", "2011-03-10T20:10:00Z")
        #expect(american.stdout.contains("now   8:00\u{202F}PM-8:30\u{202F}PM  Emmerdale") || american.stdout.contains("now   8:00 PM-8:30 PM  Emmerdale"),
                "\(american.stdout)")
        // "C" is the machine's plain setting: English, 24 hours, as without any
        cli.environment = ["LANG": "C.UTF-8"]
        #expect(try await cli.run("now", "--at", "2011-03-10T20:10:00Z").stdout.contains("now   20:00-20:30  Emmerdale"))
        #expect(try await cli.run("sources", "add", "--help").stdout.hasPrefix("OVERVIEW: Add a source."))
    }

    @Test func exportWritesXMLTVThatImportsBackTheSame() async throws {
        let cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("peer-xmltv-tests/inputs/test.xml"), CLI.fixture("ours/out-of-order.xml")).status == 0)
        let exported = cli.folder + "/export.xml"
        #expect(try await cli.run("export", "--output", exported).status == 0)
        let again = CLI()
        #expect(try await again.run("import", exported).status == 0)
        // A one-off import is named by its file name (never the folders it sits in).
        let exportedName = (exported as NSString).lastPathComponent
        await #expect(try cli.run("search", "blah", "--past", "--json").stdout
                == again.run("search", "blah", "--past", "--json").stdout.replacingOccurrences(of: exportedName, with: "test.xml"))
        // Channels come back with their names and icons; the channel number is not in xmltv.dtd, so not exported.
        let before = try #require(try await cli.run("channels", "--json").json() as? [[String: Any]])
        let after = try #require(try await again.run("channels", "--json").json() as? [[String: Any]])
        #expect(before.map { "\($0["id"]!) \($0["name"]!) \($0["icon"] ?? "-")" } == after.map { "\($0["id"]!) \($0["name"]!) \($0["icon"] ?? "-")" })
    }

    /// `tvguide backup` and `restore`: the embedded store copied and put back (the database replaced kept beside it);
    /// PostgreSQL's are pointed at pg_dump and pg_restore.
    @Test func backupAndRestore() async throws {
        let cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("radiotimes/26.dat")).status == 0)
        let backup = cli.folder + "/backup.sqlite"
        let made = try await cli.run("backup", backup)
        guard TestDatabase.postgres == nil else {
            #expect(made.status != 0 && made.stderr.contains("pg_dump"))
            #expect(try await cli.run("restore", backup).stderr.contains("pg_restore"))
            return
        }
        #expect(made.status == 0 && made.stdout.contains("Backed up") && made.stdout.contains("1 channel,"), "\(made)")
        let before = try await cli.run("now", "--at", "2011-03-10T20:10:00Z", "--json").stdout
        #expect(try await cli.run("import", CLI.fixture("ours/repairs.xml")).status == 0)
        let refused = try await cli.run("restore", CLI.fixture("ours/repairs.xml"))
        #expect(refused.status != 0 && refused.stderr.contains("is not an SQLite database"), "\(refused)")
        let restored = try await cli.run("restore", backup)
        #expect(restored.status == 0 && restored.stdout.contains("before-restore"), "\(restored)")
        #expect(try await cli.run("now", "--at", "2011-03-10T20:10:00Z", "--json").stdout == before)
    }

    /// `--lang` reads the listings in the languages given, in order, where a programme has titles in several
    /// (iptv-org's epg.tmacaraibes.com: French, English, Spanish, Portuguese), on every listing command.
    @Test func theListingCommandsReadTheLanguagesGiven() async throws {
        let cli = CLI()
        #expect(try await cli.run("import", CLI.fixture("peer-fixtures/iptv-org-epg/epg.tmacaraibes.com.content.xml")).status == 0)
        let at = ["--at", "2026-05-04T08:05:00Z"]
        #expect(try await cli.run(arguments: ["now"] + at).stdout.contains("COEUR D’ARTISTE"))
        #expect(try await cli.run(arguments: ["now", "--lang", "pt,es"] + at).stdout.contains("CORAÇÃO DE ARTISTA"))
        let day = try #require(try await cli.run("listings", "TMA.gp@SD", "--day", "2026-05-04", "--lang", "es", "--json").json() as? [[String: Any]])
        #expect(day.contains { $0["title"] as? String == "CORAZÓN DE ARTISTA" } && !day.contains { $0["title"] as? String == "COEUR D’ARTISTE" })
        #expect(try await cli.run("search", "artiste", "--past", "--lang", "en").stdout.contains("ARTIST SPOTLIGHT"))
        let grid = try await cli.run("grid", "--day", "2026-05-04", "--from", "08:00", "--hours", "1", "--width", "400", "--lang", "en")
        #expect(grid.stdout.contains("|ARTIST SPOTLIGHT"), "\(grid.stdout)")
        #expect(try await cli.run("export", "--lang", "es").stdout
                    .contains("<title lang=\"es\">CORAZÓN DE ARTISTA</title>\n    <title lang=\"fr\">COEUR D’ARTISTE</title>"))
        let wrong = try await cli.run(arguments: ["now", "--lang", "fr;en"] + at)
        #expect(wrong.status != 0 && wrong.stderr.contains("is not a list of language codes"))
    }

    @Test func errorsSayWhatToDoAndExitNonZero() async throws {
        let cli = CLI()
        let missing = try await cli.run("import", "/nonexistent/guide.xml")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no file at /nonexistent/guide.xml"))
        // A folder opens and fails only as it is read: "Error Domain=NSCocoaErrorDomain Code=256" before.
        let folder = try await cli.run("import", CLI.fixture("ours"))
        #expect(folder.status != 0 && folder.stderr.contains("ours is a folder, not a file: check the path"))
        let broken = try await cli.run("import", CLI.fixture("ours/malformed-mismatch.xml"))
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("line 4, column 18"))
        #expect(broken.stderr.contains("Nothing was changed"))
        let badTime = try await cli.run("now", "--at", "yesterday")
        #expect(badTime.status != 0)
        #expect(badTime.stderr.contains("2026-11-21T20:00:00Z"))
    }

    @Test func sourcesRefreshAndHealth() async throws {
        let cli = CLI()
        await #expect(try cli.run("sources", "add", "rt", CLI.fixture("radiotimes/{channel}.dat"), "--format", "radiotimes",
                            "--channels", "26", "--priority", "5").status == 0)
        #expect(try await cli.run("sources", "add", "gone", "/no/such/guide.xml", "--interval", "6").status == 0)
        let duplicate = try await cli.run("sources", "add", "rt", "/elsewhere.xml")
        #expect(duplicate.status != 0 && duplicate.stderr.contains("already a source called rt"))
        let badZone = try await cli.run("sources", "add", "zoned", "/x.xml", "--local-zone", "Mars/Olympus")
        #expect(badZone.status != 0 && badZone.stderr.contains("Mars/Olympus is not a time zone"))

        // One source fails: the exit code says so, the JSON says which and why, the other imports.
        let refresh = try await cli.run("refresh", "--json")
        #expect(refresh.status == 1)
        let reports = try #require(try refresh.json() as? [[String: Any]])
        try #require(reports.map { $0["source"] as? String } == ["rt", "gone"])
        #expect(reports[0]["outcome"] as? String == "imported")
        #expect((reports[0]["programmes"] as? Int ?? 0) > 300)
        #expect(reports[1]["outcome"] as? String == "failed")
        #expect((reports[1]["error"] as? String)?.contains("no file at /no/such/guide.xml") == true)

        #expect(try await cli.run("refresh", "rt").status == 0)
        #expect(try await cli.run("sources", "remove", "gone").status == 0)
        let sources = try #require(try await cli.run("sources", "list", "--json").json() as? [[String: Any]])
        #expect(sources.count == 1)
        #expect((sources.first?["definition"] as? [String: Any])?["priority"] as? Int == 5)
        // The second refresh read the very bytes it had imported: nothing to import.
        #expect(sources.first?["lastOutcome"] as? String == "unchanged")

        // A new mapping makes the same file import again.
        let channels = try await cli.run("sources", "channels", "rt", "--map", "26=itv1.london")
        #expect(channels.status == 0 && channels.stdout.contains("keep  26  Radio Times channel 26  -> itv1.london"))
        #expect(try await cli.run("refresh", "rt").status == 0)
        let health = try #require(try await cli.run("health", "--at", "2011-03-10T12:00:00Z", "--json").json() as? [String: Any])
        let rows = try #require(health["channels"] as? [[String: Any]])
        #expect(rows.map { $0["channel"] as? String } == ["itv1.london"])
        #expect(rows.first?["listingsEnd"] as? String == "2011-03-21T05:30:00Z")   // the last programme: 04:20 GMT + 70 min
    }
}
