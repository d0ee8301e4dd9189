import Foundation
import GuideCore
import GuideIngest
import GuideStore
import Testing
import XMLTV

/// The XMLTV project's own inputs, against its tv_sort expected outputs: the same programmes, stop times included.
@Suite struct PeerExpectationsTests {
    static let inputs: [String] = {
        let folder = IngestFixture.fixtures.appendingPathComponent("peer-xmltv-tests/inputs")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".xml") }.sorted()
    }()

    /// Inputs where tvguide repairs overlaps that tv_sort only warns about (see docs/repairs.md).
    static let overlapRepairs: Set<String> = ["overlap.xml", "test_remove_some_overlapping.xml", "sort.xml", "intervals.xml"]

    static func key(_ programme: Programme) -> String {
        "\(programme.channel) \(CivilTime.iso8601(programme.start)) \(programme.stop.map(CivilTime.iso8601) ?? "-") \(programme.title)"
    }

    @Test(arguments: inputs)
    func agreesWithTvSort(input: String) async throws {
        let expectedName = "tv_sort_" + input.replacingOccurrences(of: ".xml", with: "_xml.expected").replacingOccurrences(of: "-", with: "_")
        let expectedURL = IngestFixture.fixtures.appendingPathComponent("peer-xmltv-tests/expected/\(expectedName)")
        let expected = try XMLTVReader.read([UInt8](try Data(contentsOf: expectedURL)))
        let fixture = try await IngestFixture()
        try await fixture.importer.importFile(at: IngestFixture.fixtures.appendingPathComponent("peer-xmltv-tests/inputs/\(input)").path)
        let stored = try await fixture.all().map { Self.key($0.programme) }
        let wanted = expected.programmes.map(Self.key)
        if Self.overlapRepairs.contains(input) {
            // Same programmes and starts; only the stops of overlapping ones differ, by design.
            let strip: (String) -> String = { $0.split(separator: " ").enumerated().filter { $0.offset != 2 }.map(\.element).joined(separator: " ") }
            #expect(Set(stored.map(strip)) == Set(wanted.map(strip)))
        } else {
            #expect(Set(stored) == Set(wanted))
            #expect(stored.count == wanted.count)
        }
    }
}
