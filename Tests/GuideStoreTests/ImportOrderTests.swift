import Foundation
import GuideCore
import GuideStore
import Testing

/// The repairs are worked out channel run by channel run as the rows go in (``ImportRepairs``): whatever order a
/// file lists its programmes in, the same listings are stored and the same repairs reported.
@Suite struct ImportOrderTests {
    /// Files with every kind of repair: missing stops, overlaps, duplicates, clumps, zero-length programmes.
    static let files = ["ours/repairs.xml", "peer-xmltv-tests/inputs/overlap.xml", "peer-xmltv-tests/inputs/dups.xml",
                        "peer-xmltv-tests/inputs/clump.xml", "peer-xmltv-tests/inputs/sort.xml",
                        "peer-xmltv-tests/inputs/test_sort_by_channel.xml", "peer-xmltv-tests/inputs/intervals.xml"]

    /// A guide cut into what comes before its programmes, its programmes (with channel and start), and its end.
    struct Guide {
        var head: String
        var programmes: [(channel: String, start: String, text: String)]

        init(_ text: String) throws {
            let pattern = try NSRegularExpression(pattern: #"<programme\b[^>]*>[\s\S]*?</programme>|<programme\b[^>]*/>"#)
            let attribute = { (name: String, in: String) -> String in
                guard let range = `in`.range(of: #"\b\#(name)="[^"]*""#, options: .regularExpression) else { return "" }
                return String(`in`[range])
            }
            let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
            let first = matches.first.flatMap { Range($0.range, in: text)?.lowerBound } ?? text.endIndex
            head = String(text[..<first])
            programmes = matches.compactMap { Range($0.range, in: text) }.map { range in
                let element = String(text[range])
                return (attribute("channel", element), attribute("start", element), element)
            }
        }

        func written(_ order: [(channel: String, start: String, text: String)]) -> String {
            head + order.map(\.text).joined(separator: "\n") + "\n</tv>\n"
        }

        /// Every channel's second half first, then every channel's first half: each channel comes back earlier than
        /// where it stopped, after rows of it were settled.
        var halvesSwapped: [(channel: String, start: String, text: String)] {
            var byChannel: [String: [(channel: String, start: String, text: String)]] = [:]
            var channels: [String] = []
            for programme in programmes {
                if byChannel[programme.channel] == nil { channels.append(programme.channel) }
                byChannel[programme.channel, default: []].append(programme)
            }
            let halves = channels.map { channel -> (ArraySlice<(channel: String, start: String, text: String)>, ArraySlice<(channel: String, start: String, text: String)>) in
                let all = byChannel[channel] ?? []
                return (all[..<(all.count / 2)], all[(all.count / 2)...])
            }
            return halves.flatMap { Array($0.1) } + halves.flatMap { Array($0.0) }
        }
    }

    /// What a store holds, in one order whatever the order of the rows.
    static func listings(_ fixture: StoreFixture) async throws -> [String] {
        try await fixture.store.everyProgramme().map {
            "\($0.programme.channel.rawValue) \(CivilTime.iso8601($0.programme.start))-"
                + "\($0.programme.stop.map(CivilTime.iso8601) ?? "open") \($0.programme.title) \($0.programme.clumpIndex ?? "")"
        }.sorted()
    }

    @Test(arguments: files)
    func anyOrderStoresTheSameListings(file: String) async throws {
        let guide = try Guide(String(decoding: try Data(contentsOf: StoreFixture.fixtures.appendingPathComponent(file)), as: UTF8.self))
        try #require(guide.programmes.count >= 2)
        let asWritten = try await StoreFixture()
        let expected = try await asWritten.importXML(guide.written(guide.programmes))
        let listings = try await Self.listings(asWritten)

        let orders = [
            ("reversed", Array(guide.programmes.reversed())),
            ("by start, channels interleaved", guide.programmes.enumerated().sorted {
                ($0.element.start, $0.offset) < ($1.element.start, $1.offset)
            }.map(\.element)),
            ("each channel's halves swapped", guide.halvesSwapped),
        ]
        for (name, order) in orders {
            let fixture = try await StoreFixture()
            let summary = try await fixture.importXML(guide.written(order))
            #expect(try await Self.listings(fixture) == listings, "\(file), \(name)")
            #expect(summary.programmes == expected.programmes, "\(file), \(name)")
            #expect(summary.issues.total == expected.issues.total, "\(file), \(name)")
        }
    }

    /// A channel that comes back earlier than where it stopped is repaired again over all its rows; an overlap across
    /// the two parts is cut, and what was settled before is not reported twice.
    @Test func aChannelThatComesBackEarlierIsRepairedWhole() async throws {
        let fixture = try await StoreFixture()
        let summary = try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101120000", "20240101130000", "Noon"),
            ("a", "20240101123000", "20240101123000", "Zero"),
            ("a", "20240101130000", nil, "Open"),
            ("b", "20240101100000", "20240101110000", "Other"),
            ("a", "20240101100000", "20240101123000", "Morning"),
            ("a", "20240101100000", "20240101123000", "Morning"),
        ]))
        #expect(try await Self.listings(fixture) == [
            "a 2024-01-01T10:00:00Z-2024-01-01T12:00:00Z Morning ",
            "a 2024-01-01T12:00:00Z-2024-01-01T13:00:00Z Noon ",
            "a 2024-01-01T12:30:00Z-2024-01-01T12:30:00Z Zero ",
            "a 2024-01-01T13:00:00Z-open Open ",
            "b 2024-01-01T10:00:00Z-2024-01-01T11:00:00Z Other ",
        ])
        #expect(summary.issues.counts == [.overlap: 1, .duplicate: 1, .zeroLength: 1, .stopUnknown: 1])
        #expect(summary.programmes == 5)
        // The rows read back have their titles from their details (v40 keeps no other copy).
        let duplicates = summary.issues.issues.filter { $0.kind == .duplicate }
        #expect(duplicates.map(\.title) == ["Morning"] && duplicates.map(\.channel) == [ChannelID("a")])
    }
}
