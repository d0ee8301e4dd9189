import Foundation
import GuideCore
import GuideStore
import StoreTestSupport
import XMLTV

/// A fresh database (SQLite in a temporary folder, or PostgreSQL: StoreTestSupport), and helpers to fill it.
struct StoreFixture {
    /// Where the database is: a file path or a postgres:// address.
    let location: String
    let store: any GuideDatabase

    init() async throws {
        location = TestDatabase.location(in: TestScratch.folder("tvguide-test"))
        store = try await TestDatabase.open(location)
    }

    /// A fixture around a store a test opened itself.
    init(location: String, store: any GuideDatabase) {
        self.location = location
        self.store = store
    }

    /// The XMLTV fixtures shared with the XMLTV tests.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("XMLTVTests/Fixtures")

    @discardableResult
    func importXML(_ text: String, source: String = "test") async throws -> ImportSummary {
        try await importBytes(Array(text.utf8), source: source)
    }

    @discardableResult
    func importFixture(_ path: String, source: String? = nil) async throws -> ImportSummary {
        try await importBytes([UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(path))), source: source ?? path)
    }

    @discardableResult
    func importBytes(_ bytes: [UInt8], source: String) async throws -> ImportSummary {
        try await store.importListings(from: SourceName(source)) { sink in
            var reader = XMLTVReader()
            let emit: (XMLTVItem) throws -> Void = { item in
                switch item {
                case .channel(let channel): sink.add(channel)
                case .programme(let programme, let line), .remembered(let programme, let line, _):
                    sink.add(programme, line: line)
                case .repeated: break   // Not from a reader without contents.
                }
            }
            try reader.feed(bytes, emit)
            try reader.finish(emit)
            sink.record(reader.issues)
        }
    }

    /// `<tv>` around programmes written as (channel, start, stop, title) with times like `20240101200000`.
    static func xml(_ programmes: [(String, String, String?, String)], channels: [String] = []) -> String {
        var text = "<tv>\n"
        for channel in channels { text += "<channel id=\"\(channel)\"><display-name>\(channel.uppercased())</display-name></channel>\n" }
        for (channel, start, stop, title) in programmes {
            text += "<programme start=\"\(start) +0000\"" + (stop.map { " stop=\"\($0) +0000\"" } ?? "")
                + " channel=\"\(channel)\"><title>\(title)</title><desc>About \(title)</desc></programme>\n"
        }
        return text + "</tv>\n"
    }

    static func date(_ text: String) -> Date { XMLTVTimestamp.date(text)! }
}
