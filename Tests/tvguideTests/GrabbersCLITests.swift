import Foundation
import GuideCore
import Testing

/// XMLTV grabbers from the command line (issue 28): the grabbers on grabber-path listed, a grabber source added, its
/// configuration kept from a file, its channels listed and chosen, refreshed into the guide.
@Suite struct GrabbersCLITests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("XMLTVTests/Fixtures/grabbers").path

    @Test func listAddConfigureChooseAndRefresh() async throws {
        var cli = CLI()
        cli.environment["TVGUIDE_GRABBER_PATH"] = Self.folder
        let list = try await cli.run("grabbers")
        #expect(list.stdout.contains("tv_grab_zz_tvguide\ttvguide's test grabber (good)\tbaseline,apiconfig\n"), "\(list.stdout) \(list.stderr)")
        #expect(list.stdout.contains("tv_grab_zz_hang\t"))
        let json = try await cli.run("grabbers", "list", "--json")
        #expect((try json.json() as? [[String: Any]])?.count == 5)

        let path = try await cli.run("sources", "add", "--format", "grabber", "Shell", "/bin/sh")
        #expect(path.status != 0 && path.stderr.contains("name an XMLTV grabber installed on the machine"))
        #expect(try await cli.run("sources", "add", "--format", "grabber", "--days", "1", "Test", "tv_grab_zz_tvguide").status == 0)
        let unconfigured = try await cli.run("grabbers", "channels", "Test")
        #expect(unconfigured.status != 0 && unconfigured.stderr.contains("You need to configure the grabber before you can list the channels."),
                "\(unconfigured.stderr)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-grabber-\(UUID().uuidString).conf").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("# made with --configure\nregion=north\npassword=secret\n".utf8).write(to: URL(fileURLWithPath: file))
        let kept = try await cli.run("grabbers", "configure", "Test", file)
        #expect(kept.stdout == "Kept Test's configuration (0 channels chosen).\n", "\(kept.stderr)")
        let offered = try await cli.run("grabbers", "channels", "Test")
        #expect(offered.stdout == "  one.zz\tOne North\n  two.zz\tTwo North\n  three.zz\tThree North\n", "\(offered.stderr)")
        let unknown = try await cli.run("grabbers", "channels", "Test", "--choose", "four.zz")
        #expect(unknown.status != 0 && unknown.stderr.contains("does not offer four.zz"))
        let chose = try await cli.run("grabbers", "channels", "Test", "--choose", "one.zz", "three.zz")
        #expect(chose.stdout == "Test grabs 2 of 3 channels.\n")
        let printed = try await cli.run("grabbers", "configure", "Test")
        #expect(printed.stdout == "# made with --configure\nregion=north\npassword=secret\nchannel=one.zz\nchannel!two.zz\nchannel=three.zz\n")

        let refreshed = try await cli.run("refresh", "--json")
        let report = try #require((try refreshed.json() as? [[String: Any]])?.first)
        #expect(report["outcome"] as? String == "imported" && report["channels"] as? Int == 2, "\(refreshed.stdout) \(refreshed.stderr)")
        #expect(report["programmes"] as? Int == 48)
        // Its grabber ran in a home of its own: beside an SQLite file, and for PostgreSQL in the data folder, one per
        // database.
        if cli.database.contains("://") {
            let homes = try FileManager.default.contentsOfDirectory(atPath: cli.dataHome + "/tvguide")
            #expect(homes.count == 1 && homes[0].hasPrefix("postgres-") && homes[0].hasSuffix(".grabbers"), "\(homes)")
            let home = cli.dataHome + "/tvguide/" + (homes.first ?? "-")
            #expect(FileManager.default.fileExists(atPath: home + "/Test/tv_grab_zz_tvguide.conf"))
        } else {
            #expect(FileManager.default.fileExists(atPath: cli.database + ".grabbers/Test/tv_grab_zz_tvguide.conf"))
        }
    }
}
