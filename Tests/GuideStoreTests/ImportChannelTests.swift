import Foundation
import GuideCore
import GuideStore
import Testing

/// What an import does with the channels it reads: a channel described again takes its new name, number and details
/// and keeps its place; one named only by its programmes is added under its id, once, and takes a description when
/// one comes. On both stores (SQLite updates by id or adds, where it upserted: an upsert journalled three pages a
/// channel to a temporary file, docs/performance.md).
@Suite struct ImportChannelTests {
    static func guide(_ channels: String, _ programmes: [String]) -> String {
        "<tv>\n" + channels + programmes.map { channel in
            "<programme start=\"20240101200000 +0000\" stop=\"20240101210000 +0000\" channel=\"\(channel)\">"
                + "<title>On \(channel)</title></programme>\n"
        }.joined() + "</tv>\n"
    }

    @Test func aChannelDescribedAgainChangesWhereItIsAndOneNamedOnlyByItsProgrammesIsAddedOnce() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.guide("""
            <channel id="one.tv"><display-name>One</display-name><lcn>1</lcn></channel>
            <channel id="two.tv"><display-name>Two</display-name></channel>
            """, ["one.tv", "two.tv", "bare.tv"]), source: "feed")
        #expect(try await fixture.store.channels().map(\.id.rawValue) == ["one.tv", "two.tv", "bare.tv"])
        #expect(try await fixture.store.channels().map(\.name) == ["One", "Two", "bare.tv"])

        // Described again (another name, number and icon), in another order; the bare one still bare, from two sources.
        try await fixture.importXML(Self.guide("""
            <channel id="two.tv"><display-name>Two</display-name></channel>
            <channel id="one.tv">
              <display-name>Uno</display-name><lcn>11</lcn><icon src="http://example.com/uno.png"/>
            </channel>
            """, ["bare.tv", "one.tv"]), source: "feed")
        try await fixture.importXML(Self.guide("", ["bare.tv"]), source: "other")
        var channels = try await fixture.store.channels()
        #expect(channels.map(\.id.rawValue) == ["one.tv", "two.tv", "bare.tv"])
        #expect(channels.map(\.name) == ["Uno", "Two", "bare.tv"])
        #expect(channels[0].number == "11")
        #expect(channels[0].icons.map(\.src) == ["http://example.com/uno.png"])

        // Described at last: the bare channel takes its name where it stands.
        let described = "<channel id=\"bare.tv\"><display-name>Bare</display-name></channel>\n"
        try await fixture.importXML(Self.guide(described, ["bare.tv"]), source: "other")
        channels = try await fixture.store.channels()
        #expect(channels.map(\.id.rawValue) == ["one.tv", "two.tv", "bare.tv"])
        #expect(channels.map(\.name) == ["Uno", "Two", "Bare"])
        #expect(try await fixture.store.counts().channels == 3)
    }
}
