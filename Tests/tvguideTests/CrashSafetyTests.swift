import Foundation
import StoreTestSupport
import Testing

/// `kill -9` in the middle of an import or a refresh, on the store this run tests (SQLite, or PostgreSQL with
/// TVGUIDE_TEST_POSTGRES): afterwards the guide holds exactly the previous listings, and the next import brings
/// exactly the new ones. Never a mix, never empty.
@Suite(.serialized) struct CrashSafetyTests {
    /// XMLTV with `channels` channels of `perChannel` half-hour programmes each, titled "`prefix` channel/slot",
    /// from 2026-02-15 00:00 UTC.
    static func listings(_ prefix: String, channels: Int, perChannel: Int) -> String {
        var text = "<tv>\n"
        for channel in 0..<channels {
            text += "<channel id=\"c\(channel).test\"><display-name>Channel \(channel)</display-name></channel>\n"
        }
        let first = 1_771_113_600
        for channel in 0..<channels {
            for slot in 0..<perChannel {
                let start = first + slot * 1800
                text += "<programme start=\"\(stamp(start))\" stop=\"\(stamp(start + 1800))\" channel=\"c\(channel).test\">"
                    + "<title>\(prefix) \(channel)/\(slot)</title><desc>A \(prefix.lowercased()) programme with a description long enough "
                    + "to make the import take a while.</desc><category>Drama</category></programme>\n"
            }
        }
        return text + "</tv>\n"
    }

    static func stamp(_ seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " +0000"
    }

    /// What the guide holds, as the programme titles of `tvguide export`, sorted.
    static func titles(_ cli: CLI) throws -> [String] {
        let export = try cli.run("export")
        try #require(export.status == 0, "export failed: \(export.stderr)")
        // The text between each "<title ...>" and its "</title>".
        return export.stdout.components(separatedBy: "</title>").dropLast().compactMap { piece in
            piece.range(of: "<title", options: .backwards).flatMap { piece[$0.upperBound...].components(separatedBy: ">").last }
        }.sorted()
    }

    /// Kills `process` with SIGKILL after `delay`; whether it was still running then (killed mid-way, not after).
    static func kill(_ process: Process, after delay: Duration) throws -> Bool {
        Thread.sleep(forTimeInterval: Double(delay / .milliseconds(1)) / 1000)
        guard process.isRunning else { return false }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    /// A folder with the feed file the import or the source reads.
    static func feed(_ text: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("feed.xml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let old = listings("Old", channels: 20, perChannel: 48)
    /// 60,000 programmes (18 MB): seconds of importing in a debug build, so the kills land inside the import. A
    /// kill that comes too late (the process had finished) ends the kills; the final import checks its outcome.
    static let new = listings("New", channels: 100, perChannel: 600)

    @Test func killedImportsLeaveThePreviousListings() throws {
        let cli = CLI()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // The test's own scratch folder.
        let path = try Self.feed(Self.old, in: folder)
        #expect(try cli.run("import", path).status == 0)
        let before = try Self.titles(cli)
        #expect(before.count == 20 * 48)

        _ = try Self.feed(Self.new, in: folder)
        var killed = 0
        for delay in [200, 500, 800] as [Int] {
            guard try Self.kill(try cli.launch("import", path), after: .milliseconds(delay)) else { break }
            killed += 1
            #expect(try Self.titles(cli) == before, "after a kill at \(delay) ms the guide must be exactly the previous listings")
        }
        #expect(killed > 0, "the import finished before any kill: make the file bigger")

        #expect(try cli.run("import", path).status == 0)
        let after = try Self.titles(cli)
        #expect(after.count == 100 * 600)
        #expect(after.filter { !$0.hasPrefix("New ") }.isEmpty)
    }

    @Test func killedRefreshesLeaveThePreviousListings() throws {
        let cli = CLI()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // The test's own scratch folder.
        let path = try Self.feed(Self.old, in: folder)
        #expect(try cli.run("sources", "add", "feed", path).status == 0)
        #expect(try cli.run("refresh", "feed").status == 0)
        let before = try Self.titles(cli)
        #expect(before.count == 20 * 48)

        _ = try Self.feed(Self.new, in: folder)
        var killed = 0
        for delay in [300, 700] as [Int] {
            guard try Self.kill(try cli.launch("refresh", "feed"), after: .milliseconds(delay)) else { break }
            killed += 1
            #expect(try Self.titles(cli) == before, "after a kill at \(delay) ms the guide must be exactly the previous listings")
        }
        #expect(killed > 0, "the refresh finished before any kill: make the file bigger")

        // The killed refreshes' locks went with their processes: this one is not turned away.
        let refresh = try cli.run("refresh", "feed")
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let after = try Self.titles(cli)
        #expect(after.count == 100 * 600)
        #expect(after.filter { !$0.hasPrefix("New ") }.isEmpty)
    }
}
