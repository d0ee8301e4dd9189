import Foundation
import GuideCore
@testable import GuideIngest
import GuideStore
import Testing

/// A feed whose server sends no ETag or Last-Modified is downloaded whole every time; tvguide keeps what its bytes
/// were (an XXH64 per 4 MiB block) and imports it only when they differ.
@Suite struct ContentDigestTests {
    /// A real guide's programmes copied onto renamed channels until the file passes `bytes`, with `title` given to the
    /// very last programme: a change in the last block of a feed of several.
    static func large(atLeast bytes: Int, lastTitle title: String = "The last") -> [UInt8] {
        let text = String(decoding: RefreshTests.small, as: UTF8.self)
        let programmes = text.components(separatedBy: "<programme ").dropFirst().map { "<programme " + $0.components(separatedBy: "</programme>")[0] + "</programme>\n" }
        var body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n"
        var copy = 0
        while body.utf8.count < bytes {
            for programme in programmes {
                body += programme.replacingOccurrences(of: "channel=\"", with: "channel=\"copy\(copy).")
            }
            copy += 1
        }
        let last = "<programme start=\"20300101000000 +0000\" stop=\"20300101010000 +0000\" channel=\"copy0.last\"><title>\(title)</title></programme>\n"
        return Array((body + last + "</tv>\n").utf8)
    }

    @Test func theSameBytesAgainAreNotImportedAgain() async throws {
        let rig = try await RefreshTests.Rig()
        rig.server.script("/guide.xml", .file(RefreshTests.small))
        try await rig.add("feed", "/guide.xml")
        #expect(try await rig.refresh("feed").outcome == .imported)
        let version = try await rig.fixture.store.version()
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .unchanged)
        #expect(report.notModified == 1 && report.programmes == 0)
        // Nothing conditional was asked: the server gave nothing to ask with.
        let second = try #require(rig.server.requests(to: "/guide.xml").last)
        #expect(second.headers["if-none-match"] == nil && second.headers["if-modified-since"] == nil)
        #expect(try await rig.fixture.store.version().generation == version.generation)
        try await rig.close()
    }

    @Test func aNewChoiceOfChannelsImportsTheSameBytesAgain() async throws {
        let rig = try await RefreshTests.Rig()
        rig.server.script("/guide.xml", .file(RefreshTests.small))
        try await rig.add("feed", "/guide.xml")
        #expect(try await rig.refresh("feed").outcome == .imported)
        #expect(try await rig.refresh("feed").outcome == .unchanged)
        // Dropping a channel changes what the same bytes make: they are imported again, without it.
        var channels = try await rig.fixture.store.sourceChannels(of: SourceName("feed"))
        let dropped = try #require(channels.first)
        channels[0].keep = false
        try await rig.fixture.store.chooseSourceChannels([channels[0]], of: SourceName("feed"))
        #expect(try await rig.refresh("feed").outcome == .imported)
        #expect(try await rig.guide().allSatisfy { !$0.hasPrefix(dropped.id.rawValue + " ") })
        #expect(try await rig.refresh("feed").outcome == .unchanged)
        try await rig.close()
    }

    @Test func aChangeInTheLastBlockIsImportedWhole() async throws {
        let rig = try await RefreshTests.Rig()
        let first = Self.large(atLeast: 9 << 20)
        rig.server.script("/guide.xml", .file(first))
        try await rig.add("feed", "/guide.xml")
        let imported = try await rig.refresh("feed")
        #expect(imported.outcome == .imported)

        // The first two blocks match and are skipped; the survey reads them back when the third differs.
        rig.server.script("/guide.xml", .file(Self.large(atLeast: 9 << 20, lastTitle: "The last, changed")))
        let changed = try await rig.refresh("feed")
        #expect(changed.outcome == .imported)
        // Only the day of the last programme is read again (``RefreshPlan``); the rest stays as stored.
        #expect(changed.programmes + changed.unchanged == imported.programmes && changed.channels == imported.channels)
        #expect(changed.unchanged > 0 && changed.programmes < 10)
        #expect(try await rig.guide().contains { $0.hasSuffix("The last, changed") })

        // Longer by one byte is not the same either; the same again is.
        rig.server.script("/guide.xml", .file(Self.large(atLeast: 9 << 20, lastTitle: "The last, changed") + Array("\n".utf8)))
        #expect(try await rig.refresh("feed").outcome == .imported)
        #expect(try await rig.refresh("feed").outcome == .unchanged)
        // And a feed shorter than the one imported, the same as far as it goes, is imported.
        rig.server.script("/guide.xml", .file(Array(RefreshTests.small)))
        let shorter = try await rig.refresh("feed")
        #expect(shorter.outcome == .imported)
        try await rig.close()
    }

    @Test func aLocalFileThatDidNotChangeIsNotImportedAgain() async throws {
        let rig = try await RefreshTests.Rig()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-digest-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(RefreshTests.small).write(to: file)
        try await rig.fixture.store.addSource(SourceDefinition(name: SourceName("file"), format: .xmltv, location: file.path))
        #expect(try await rig.refresh("file").outcome == .imported)
        #expect(try await rig.refresh("file").outcome == .unchanged)
        try Data(RefreshTests.other).write(to: file)
        #expect(try await rig.refresh("file").outcome == .imported)
        try await rig.close()
    }

    @Test func storedDigestsThatAreNotOursCountAsNone() {
        let hex = String(repeating: "0b", count: 8)
        #expect(ContentDigests.blocks(of: "xxh64/4MiB:" + hex + hex) == [hex, hex])
        for stored in [nil, "", "xxh64/4MiB:", "md5:" + hex, "xxh64/4MiB:" + hex.uppercased(), "xxh64/4MiB:" + hex + "a",
                       "xxh64/4MiB:" + String(repeating: "zz", count: 8), "sha256/4MiB:" + hex + hex + hex + hex,
                       "xxh64/4MiB:" + String(repeating: hex, count: ContentDigests.mostBlocks + 1)] {
            #expect(ContentDigests.blocks(of: stored).isEmpty, "\(stored ?? "nil")")
        }
    }
}
