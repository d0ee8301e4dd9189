import BoxesReplay
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import TestReceivers
import Testing

/// Every XMLTV tvguide serves passes the XMLTV project's own validator (xmltv-util's `tv_validate_file`, against
/// xmltv.dtd): the whole guide and each lineup feed in both shapes, plain and gzip, carrying logos, episode numbers,
/// credits, ratings and titles in several languages; what an HDHomeRun's and an Enigma2 receiver's guides are written as
/// before they are imported. (What a Schedules Direct refresh writes is validated beside its refresh, in SDGuideTests.)
@Suite(.enabled(if: XMLTVValidator.isAvailable)) struct WrittenXMLTVTests {
    static let fixtures = URL(fileURLWithPath: XMLTVValidator.dtdFolder)
    /// 29 July 2020, 00:30 UTC: inside Jellyfin's real Schedules Direct listings (EPG123's, with credits, ratings and
    /// artwork).
    static let now = Date(timeIntervalSince1970: 1_595_982_600)

    /// Jellyfin's Schedules Direct listings, and the XMLTV project's test programme (titles in German and English,
    /// credits with images, a rating, a star rating, a review) moved to the same night.
    static func server() async throws -> TestServer {
        let listings = try String(contentsOf: fixtures.appendingPathComponent("peer-fixtures/jellyfin-xmltv/schedulesdirect.xml"), encoding: .utf8)
        let server = try await TestServer(listings: listings, now: now)
        let german = try String(contentsOf: fixtures.appendingPathComponent("peer-xmltv-tests/inputs/test.xml"), encoding: .utf8)
        try await server.importListings(german.replacingOccurrences(of: #"start="200006031633""#,
                                                                    with: #"start="20200729013300 +0000" stop="20200729023300 +0000""#),
                                        as: "xmltv-project")
        return server
    }

    @Test func theWholeGuideAndEveryFeedShapeValidate() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let ada = try #require(try await server.store.profiles().first)
            var paths = ["/xmltv.xml"]
            for shape in LineupFeed.Shape.allCases {
                paths.append(try await LineupFeedTests.addFeed(admin, client, name: "Feed \(shape.rawValue)",
                                                               channels: "lineup:\(ada.id.rawValue)", shape: shape.rawValue))
            }
            for path in paths {
                for compressed in [false, true] {
                    let response = try await client.execute(uri: path + (compressed ? ".gz" : ""), method: .get)
                    #expect(response.status == .ok, "\(path)")
                    let body = Data(buffer: response.body)
                    if !compressed {
                        // What the file must carry for the check to mean something.
                        let text = String(decoding: body, as: UTF8.self)
                        for part in ["<credits>", "<rating", "<episode-num", "<icon src=", #"lang="de""#, #"lang="en""#] {
                            #expect(text.contains(part), "\(path) carries no \(part)")
                        }
                    }
                    let complaints = try await XMLTVValidator.complaints(about: body, compressed: compressed)
                    #expect(complaints.isEmpty, "\(path)\(compressed ? ".gz" : ""): \(complaints)")
                }
            }
        }
    }

    /// A tuner's guide and a receiver's EPG are written as XMLTV and imported as any guide is: from their recorded
    /// answers (the stand-ins), the files as written.
    @Test func whatATunerAndAReceiverGuideAreWrittenAsValidates() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-boxes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // Test scratch folder.
        let tuner = try await HDHomeRunStandIn(now: { Date() })
        let written = folder.appendingPathComponent("tuner.xml")
        let counts = try await HDHomeRunGuide(transport: TestHTTP.transport, base: tuner.guideBase, now: { Date() })
            .refresh(device: tuner.device, days: 1, into: written)
        #expect(counts.airings > 100)
        let complaints = try await XMLTVValidator.complaints(about: Data(contentsOf: written))
        #expect(complaints.isEmpty, "\(complaints)")
        try await tuner.stop()

        let receiver = try await OpenWebifStandIn(now: { Date() })
        let guide = OpenWebifGuide(transport: TestHTTP.transport, credentials: HTTPCredentials(username: "root", password: "dreambox"))
        let bouquet = try await guide.bouquet(at: "http://127.0.0.1:\(receiver.port)", named: nil)
        let epg = folder.appendingPathComponent("receiver.xml")
        #expect(try await guide.refresh(location: bouquet.location, into: epg).programmes == 18)
        // The receiver's channels keep the ids they have had since the preset was added (its service references with
        // `_`, which the validator's id pattern does not take): favourites and lineups hold them. Nothing else is let by.
        let epgComplaints = try await XMLTVValidator.complaints(about: Data(contentsOf: epg))
            .filter { !($0.contains("Invalid channel-id '1_0_19_") && $0.hasSuffix(".enigma2'")) }
        #expect(epgComplaints == ["1 error found."], "\(epgComplaints)")
        try await receiver.stop()
    }
}
