import Foundation
import GuideCore
import TestReceivers
import Testing
@testable import XMLTV

@Suite struct XMLTVWriterTests {
    static func write(_ channels: [Channel], _ programmes: [Programme]) throws -> [UInt8] {
        var text = ""
        let writer = XMLTVWriter { text += $0 }
        try writer.begin()
        for channel in channels { try writer.write(channel) }
        for programme in programmes { try writer.write(programme) }
        try writer.end()
        return Array(text.utf8)
    }

    static let fixtures: [String] = {
        let folders = ["ours", "peer-xmltv-tests/inputs", "peer-fixtures/ektotv-xmltv", "peer-fixtures/iptv-org-epg",
                       "peer-fixtures/node-xmltv", "peer-fixtures/jellyfin-xmltv"]
        return folders.flatMap { (try? Fixture.files(in: $0)) ?? [] }
            .filter { (try? XMLTVReader.read(Fixture.bytes($0))) != nil }
    }()

    /// parse -> write -> parse gives the same values.
    @Test(arguments: fixtures)
    func roundTrips(file: String) throws {
        let first = try Fixture.read(file)
        let written = try Self.write(first.channels, first.programmes)
        let second = try XMLTVReader.read(written)
        #expect(second.channels.map(\.id) == first.channels.map(\.id))
        #expect(second.channels.map(\.displayNames) == first.channels.map(\.displayNames))
        #expect(second.programmes == first.programmes.map(Self.creditsInDTDOrder))
    }

    /// The writer puts credits in the DTD's role order; that is the only change a round trip may make.
    static func creditsInDTDOrder(_ programme: Programme) -> Programme {
        var programme = programme
        let order = Dictionary(uniqueKeysWithValues: Credit.Role.allCases.enumerated().map { ($1, $0) })
        programme.credits = programme.credits.enumerated()
            .sorted { (order[$0.element.role]!, $0.offset) < (order[$1.element.role]!, $1.offset) }.map(\.element)
        return programme
    }

    @Test func roundTripsTheRadioTimesFeed() throws {
        var reader = RadioTimesReader(channel: Channel(id: ChannelID("26"), displayNames: [LocalizedText("ITV1")]))
        var programmes: [Programme] = []
        try reader.feed(try Fixture.bytes("radiotimes/26.dat")) { if case .programme(let p, _) = $0 { programmes.append(p) } }
        try reader.finish { if case .programme(let p, _) = $0 { programmes.append(p) } }
        let second = try XMLTVReader.read(try Self.write([reader.channel], programmes))
        #expect(second.programmes == programmes)
    }

    /// The written file validates against xmltv.dtd with xmltv-util's tv_validate_file, when it is installed.
    @Test(.enabled(if: XMLTVValidator.isAvailable),
          arguments: ["ours/out-of-order.xml", "peer-xmltv-tests/inputs/test.xml", "peer-fixtures/ektotv-xmltv/example.xml",
                      "peer-fixtures/jellyfin-xmltv/schedulesdirect.xml", "peer-fixtures/iptv-org-epg/vantagetv.ee.content.xml"])
    func validatesWithTvValidateFile(file: String) async throws {
        let first = try Fixture.read(file)
        let written = try Self.write(first.channels, first.programmes)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-validate-\(UUID().uuidString).xml").path
        try Data(written).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }  // Test scratch file.
        let (status, output) = try await XMLTVValidator.validate(path, dtdFolder: Fixture.root.path)
        // The validator also judges the data (channel ids without a dot, channels without programmes); those
        // complaints are about the fixture, not the writer. Anything else (a DTD error) fails the test.
        let dataComplaints = ["Validated ok", "Invalid channel-id", "No programme entries found for", "error found", "errors found"]
        let problems = output.split(separator: "\n").filter { line in
            !line.trimmingCharacters(in: .whitespaces).isEmpty && !dataComplaints.contains { line.contains($0) }
        }
        #expect(problems.isEmpty, "\(output)")
        #expect(status == 0 || output.contains("error"), "\(output)")
        if file == "ours/out-of-order.xml" { #expect(output.contains("Validated ok"), "\(output)") }
    }
}
