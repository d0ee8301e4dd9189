import Foundation
import Glibc
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import StoreTestSupport
import Testing

/// XMLTV grabbers as a source kind: the real grabbers of xmltv-util asked what they are, tvguide's own test grabber
/// configured through its `--configure-api` stages and run as a source, and misbehaving variants of it (one that
/// hangs, one that floods standard output, one that fails, one that writes half a document), each run as a source that
/// already has listings, which it must keep.
@Suite struct GrabberTests {
    static let fixtures = IngestFixture.fixtures.appendingPathComponent("grabbers").path
    static let recorded = fixtures + "/recorded"
    static let hasXMLTVUtil = FileManager.default.isExecutableFile(atPath: "/usr/bin/tv_grab_fr")

    /// Grabbers found in the test grabbers' folder, homes in a fresh folder, short limits.
    static func grabbers(grabTime: Duration = .seconds(60), outputBytes: Int64 = 1 << 30) -> Grabbers {
        let home = TestScratch.folder("tvguide-grabbers") + "/home"
        return Grabbers(directories: [fixtures], home: home,
                        limits: Grabbers.Limits(grabTime: grabTime, outputBytes: outputBytes, questionTime: .seconds(25)))
    }

    /// What `installed-grabbers.txt` recorded a grabber printing for `option`.
    static func recordedAnswer(_ grabber: String, _ option: String) throws -> [String] {
        let text = try String(contentsOfFile: recorded + "/installed-grabbers.txt", encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("---- \(grabber) \(option) ") }) else { return [] }
        return lines[(start + 1)...].prefix { !$0.hasPrefix("----") && !$0.hasPrefix("====") }.map(String.init).filter { !$0.isEmpty }
    }

    @Test(.enabled(if: hasXMLTVUtil, "xmltv-util is installed by scripts/test"))
    func theInstalledGrabbersSayWhatTheyWereRecordedSaying() async throws {
        // What they say is the point, not how fast: beside the whole suite a Perl grabber's --description took over the
        // server's 25 s once here, alone a second.
        let home = TestScratch.folder("tvguide-grabbers") + "/home"
        let grabbers = Grabbers(directories: ["/usr/bin", "/bin"], home: home,
                                limits: Grabbers.Limits(questionTime: .seconds(180)))
        for name in ["tv_grab_fr", "tv_grab_uk_tvguide", "tv_grab_zz_sdjson", "tv_grab_ch_search", "tv_grab_pt_vodafone"] {
            let grabber = try #require(await grabbers.grabber(named: name), "\(name) is installed")
            #expect(grabber.description == (try Self.recordedAnswer(name, "--description").first), "\(name)")
            #expect(grabber.capabilities == (try Self.recordedAnswer(name, "--capabilities")), "\(name)")
            #expect(grabber.isUsable, "\(name): \(grabber.problem?.description ?? "")")
            #expect(grabber.path == "/usr/bin/\(name)", "found once, by its real path")
        }
        // tv_grab_fr under-reports: --capabilities has no apiconfig, but its --configure-api answers (as recorded).
        let french = try #require(await grabbers.grabber(named: "tv_grab_fr"))
        #expect(!french.configuresByAPI)
        let questions = try await grabbers.questions("start", grabber: "tv_grab_fr", for: SourceName("France"), configuration: GrabberConfiguration())
        #expect(questions.grabber == "tv_grab_fr")
        #expect(questions.questions.map(\.id) == ["cachedir"])
        #expect(questions.questions.first?.kind == .string)
        #expect(questions.questions.first?.title == "Directory to store tv_grab_fr cache")
        // Its default is under the home tvguide gave it, never serve's own.
        #expect(questions.questions.first?.suggested?.hasPrefix(grabbers.home(of: SourceName("France"))) == true)
        #expect(questions.nextStage == "bouquet")
        // Not configured, a grab is refused by the grabber, and tvguide says what it said.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-fr-\(UUID().uuidString).xml").path
        await #expect {
            try await grabbers.grab(grabber: "tv_grab_fr", for: SourceName("France"), configuration: GrabberConfiguration(), days: 1, into: file)
        } throws: { error in
            "\(error)".hasPrefix("tv_grab_fr failed (exit status 1): No configured cachedir found in config file")
        }
        try? FileManager.default.removeItem(atPath: file)
    }

    @Test func theRecordedFirstStagesAreRead() throws {
        let expected: [String: ([String], String)] = [
            "tv_grab_fr": (["cachedir"], "bouquet"),
            "tv_grab_na_tvmedia": (["apikey"], "two"),
            "tv_grab_uk_tvguide": (["cachedir"], "select-channels"),
            "tv_grab_zz_sdjson_sqlite": (["database"], "select-lineup"),
        ]
        for (grabber, (ids, next)) in expected {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(Self.recorded)/\(grabber)--configure-api--stage-start.xml")))
            let questions = try GrabberQuestions.read(bytes)
            #expect(questions.grabber == grabber)
            #expect(questions.questions.map(\.id) == ids, "\(grabber)")
            #expect(questions.nextStage == next, "\(grabber)")
            #expect(questions.questions.allSatisfy { !$0.title.isEmpty && $0.title != $0.id }, "\(grabber): titles read")
        }
        // ISO-8859-1, as tv_grab_na_tvmedia declares.
        let latin = Array("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?><xmltvconfiguration grabber=\"g\"><string id=\"a\"><title lang=\"en\">Caf\u{E9}</title></string></xmltvconfiguration>".unicodeScalars.map { UInt8($0.value) })
        #expect(try GrabberQuestions.read(latin).questions.first?.title == "Café")
        #expect(throws: GrabberQuestions.Unreadable.self) { try GrabberQuestions.read(Array("<xmltvconfiguration><string id=\"a\">".utf8)) }
    }

    @Test func discoveryFindsEachGrabberOnceByNameAndRealPath() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-path-\(UUID().uuidString)").path
        let (first, second) = (root + "/first", root + "/second")
        for folder in [first, second] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createSymbolicLink(atPath: first + "/tv_grab_zz_tvguide", withDestinationPath: Self.fixtures + "/tv_grab_zz_tvguide")
        // The same file by another name is one grabber; a later folder's grabber of the same name is not used.
        try FileManager.default.createSymbolicLink(atPath: first + "/tv_grab_zz_alias", withDestinationPath: Self.fixtures + "/tv_grab_zz_tvguide")
        try FileManager.default.createSymbolicLink(atPath: second + "/tv_grab_zz_tvguide", withDestinationPath: Self.fixtures + "/tv_grab_zz_fail")
        // Not grabbers: not executable, a backup, a name that is not a grabber's.
        _ = FileManager.default.createFile(atPath: first + "/tv_grab_zz_plain", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o644])
        _ = FileManager.default.createFile(atPath: first + "/tv_grab_zz_x~", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        let grabbers = Grabbers(directories: [first, second, "relative/ignored"], home: root + "/home")
        let found = await grabbers.installed()
        #expect(found.map(\.name) == ["tv_grab_zz_alias"], "the second name of one file, and a later folder's, are not grabbers of their own")
        #expect(found.first?.description == "tvguide's test grabber (good)")
        #expect(found.first?.capabilities == ["baseline", "apiconfig"])
        #expect(found.first?.configuresByAPI == true)
    }

    @Test func theTestGrabberIsConfiguredByItsStagesAndRunAsASource() async throws {
        let fixture = try await IngestFixture()
        let grabbers = Self.grabbers()
        let source = SourceName("Grabbed")
        // Stage start asks for a region (chosen among options) and a password.
        let start = try await grabbers.questions("start", grabber: "tv_grab_zz_tvguide", for: source, configuration: GrabberConfiguration())
        #expect(start.questions.map(\.id) == ["region", "password"])
        #expect(start.questions[0].kind == .selectone && start.questions[0].options.map(\.value) == ["north", "south"])
        #expect(start.questions[0].title == "Region" && start.questions[0].suggested == "north")
        #expect(start.questions[1].kind == .secretstring)
        #expect(start.nextStage == "select-channels" && !start.isLast)
        // An answer with a line break cannot add a line of its own.
        var configuration = GrabberConfiguration().appending([("region", "south", true), ("password", "secret\nchannel=evil.zz", true)])
        #expect(configuration.entries.count == 2)
        #expect(configuration.entries[1].value == "secretchannel=evil.zz")
        configuration = GrabberConfiguration().appending([("region", "south", true), ("password", "secret", true)])
        // The channels, from --list-channels; two of three chosen.
        let offered = try await grabbers.channels(grabber: "tv_grab_zz_tvguide", for: source, configuration: configuration)
        #expect(offered.map(\.id.rawValue) == ["one.zz", "two.zz", "three.zz"])
        #expect(offered.map(\.name) == ["One South", "Two South", "Three South"])
        configuration = configuration.choosing(["one.zz", "three.zz"], of: offered.map(\.id.rawValue))
        #expect(configuration.chosenChannels == ["one.zz", "three.zz"])
        #expect(configuration.text.contains("channel!two.zz\n"))
        // Kept in the store and run as a source.
        try await fixture.store.setGrabberConfiguration(configuration.text, of: source)
        try await fixture.store.addSource(SourceDefinition(name: source, format: .grabber, location: "tv_grab_zz_tvguide", days: 2))
        let transport = AsyncHTTPTransport()
        let refresher = SourceRefresher(store: fixture.store, transport: transport, grabbers: grabbers, now: { Date() }, clock: ContinuousClock())
        let report = try #require(try await refresher.refresh([source]).first)
        try await transport.shutdown()
        #expect(report.outcome == .imported, "\(report.error ?? "")")
        #expect(report.channels == 2)
        #expect(report.programmes == 2 * 24 * 2)
        #expect(Set(try await fixture.all().map(\.programme.channel.rawValue)) == ["one.zz", "three.zz"])
        // Its configuration file is private to tvguide, in the source's own home.
        var info = stat()
        #expect(stat(grabbers.home(of: source) + "/tv_grab_zz_tvguide.conf", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        // Removing the source forgets its configuration (it may hold a password).
        try await fixture.store.removeSource(source)
        #expect(try await fixture.store.grabberConfiguration(of: source) == nil)
    }

    /// A source with listings from the good grabber, then switched to `variant`: its refresh fails saying why, and the
    /// guide keeps every programme it had.
    func misbehaving(_ variant: String, grabTime: Duration = .seconds(60), outputBytes: Int64 = 1 << 30,
                     check: (SourceReport, Grabbers) throws -> Void) async throws {
        let fixture = try await IngestFixture()
        // The listings before come from a grabber without the test's limits.
        let (first, grabbers) = (Self.grabbers(), Self.grabbers(grabTime: grabTime, outputBytes: outputBytes))
        let source = SourceName("Grabbed")
        let configuration = GrabberConfiguration("region=north\npassword=secret\nchannel=one.zz\nchannel=two.zz\n")
        try await fixture.store.setGrabberConfiguration(configuration.text, of: source)
        var definition = SourceDefinition(name: source, format: .grabber, location: "tv_grab_zz_tvguide", days: 1)
        try await fixture.store.addSource(definition)
        let transport = AsyncHTTPTransport()
        #expect(try await SourceRefresher(store: fixture.store, transport: transport, grabbers: first, now: { Date() }, clock: ContinuousClock()).refresh([source]).first?.outcome == .imported)
        let refresher = SourceRefresher(store: fixture.store, transport: transport, grabbers: grabbers, now: { Date() }, clock: ContinuousClock())
        let before = try await fixture.all()
        #expect(before.count == 48)
        definition.location = variant
        try await fixture.store.updateSource(definition)
        let report = try #require(try await refresher.refresh([source]).first)
        try await transport.shutdown()
        #expect(report.outcome == .failed)
        #expect(try await fixture.all() == before, "the guide keeps what it had")
        let status = try #require(try await fixture.store.sources().first)
        #expect(status.lastError == report.error, "the reason is the source's, for the health page")
        try check(report, grabbers)
    }

    @Test func aGrabberThatFailsSaysWhyAndTheGuideKeepsItsListings() async throws {
        try await misbehaving("tv_grab_zz_fail") { report, _ in
            #expect(report.error == """
                tv_grab_zz_fail failed (exit status 1): Initializing...
                ** GET https://listings.invalid/ ==> 500 Can't connect (Name or service not known)
                Failed to get listings
                """)
        }
    }

    @Test func aGrabberThatWritesHalfADocumentIsNotImported() async throws {
        try await misbehaving("tv_grab_zz_half") { report, _ in
            #expect(report.error == "tv_grab_zz_half failed (exit status 0): it wrote an unfinished document (no closing </tv>)",
                    "\(report.error ?? "")")
        }
    }

    @Test func aGrabberThatFloodsStandardOutputIsEnded() async throws {
        try await misbehaving("tv_grab_zz_flood") { report, _ in
            #expect(report.error?.hasPrefix("tv_grab_zz_flood failed (ended by signal 15 (it wrote more to standard output than tvguide keeps))") == true,
                    "\(report.error ?? "")")
        }
    }

    /// That it ends is the point, not how fast: the report says it was killed past its limit and the process is gone
    /// (a wall-clock bound here measured the whole suite's load: 159 s once on PostgreSQL in CI, the grab itself 8 s).
    @Test func aGrabberThatHangsIsKilledAtItsTimeLimitWithWhatItStarted() async throws {
        try await misbehaving("tv_grab_zz_hang", grabTime: .seconds(3)) { report, grabbers in
            // It ignores SIGTERM: SIGKILL after the 5 s grace.
            #expect(report.error?.hasPrefix("tv_grab_zz_hang failed (ended by signal 9 (it ran past its time limit))") == true,
                    "\(report.error ?? "")")
            let pid = try #require(pid_t(try String(contentsOfFile: grabbers.home(of: SourceName("Grabbed")) + "/hang.pid", encoding: .utf8)))
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the grabber is gone, and reaped")
        }
    }

    @Test func aGrabbersOutputFileIsBounded() async throws {
        // 48 programmes of about 130 bytes each are more than 2 KB.
        try await misbehaving("tv_grab_zz_tvguide", outputBytes: 2048) { report, _ in
            #expect(report.error?.contains("its output file grew past the size limit") == true, "\(report.error ?? "")")
        }
    }

    @Test func aGrabIsEndedWhenItsRefreshIsCancelled() async throws {
        let fixture = try await IngestFixture()
        let grabbers = Self.grabbers()
        let source = SourceName("Grabbed")
        try await fixture.store.setGrabberConfiguration("region=north\npassword=secret\n", of: source)
        try await fixture.store.addSource(SourceDefinition(name: source, format: .grabber, location: "tv_grab_zz_hang", days: 1))
        let transport = AsyncHTTPTransport()
        let refresher = SourceRefresher(store: fixture.store, transport: transport, grabbers: grabbers, now: { Date() }, clock: ContinuousClock())
        let refresh = Task { try await refresher.refresh([source]) }
        let pidFile = grabbers.home(of: source) + "/hang.pid"
        let waited = ContinuousClock.now
        // Started beside the whole suite it has taken over 30 s to write its pid: the wait is for the start, not a bound.
        while !FileManager.default.fileExists(atPath: pidFile) && ContinuousClock.now - waited < .seconds(180) {
            try await Task.sleep(for: .milliseconds(100))
        }
        refresh.cancel()
        let report = try #require(try await refresh.value.first)
        try await transport.shutdown()
        #expect(report.outcome == .failed)
        #expect(report.error?.contains("tvguide stopped it") == true, "\(report.error ?? "")")
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func aSourceWithoutConfigurationOrGrabberSaysSo() async throws {
        let fixture = try await IngestFixture()
        let grabbers = Self.grabbers()
        try await fixture.store.addSource(SourceDefinition(name: SourceName("New"), format: .grabber, location: "tv_grab_zz_tvguide"))
        try await fixture.store.setGrabberConfiguration("password=secret\n", of: SourceName("Gone"))
        try await fixture.store.addSource(SourceDefinition(name: SourceName("Gone"), format: .grabber, location: "tv_grab_zz_uninstalled"))
        let transport = AsyncHTTPTransport()
        let refresher = SourceRefresher(store: fixture.store, transport: transport, grabbers: grabbers, now: { Date() }, clock: ContinuousClock())
        let reports = try await refresher.refresh([SourceName("New"), SourceName("Gone")])
        try await transport.shutdown()
        #expect(reports[0].error == "tv_grab_zz_tvguide is not configured yet: an admin configures it on the source's page")
        #expect(reports[1].error?.hasPrefix("tv_grab_zz_uninstalled failed (not run): there is no grabber called tv_grab_zz_uninstalled in ") == true)
        // A path is never a grabber's name.
        #expect(SourceDefinition(name: SourceName("P"), format: .grabber, location: "/bin/sh").problem != nil)
        #expect(SourceDefinition(name: SourceName("P"), format: .grabber, location: "tv_grab_../x").problem != nil)
        #expect(SourceDefinition(name: SourceName("P"), format: .grabber, location: "tv_grab_fr").problem == nil)
    }
}
