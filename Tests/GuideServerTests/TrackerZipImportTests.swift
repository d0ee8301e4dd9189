import Foundation
import GuideCore
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import TestReceivers
import Testing

/// Real tracker exports as they come, zipped as the trackers send them, imported end to end through the API and the
/// page against the TVmaze replay, and what the import found compared with an independent count of the files
/// (count_history.py: Python's csv and json, nothing of tvguide's). The same through the CLI: SeriesCLITests.
@Suite struct TrackerZipImportTests {
    /// What an import's answer says it read: shows, and watched episodes (found on TVmaze or not).
    static func read(_ answer: [String: Any]) -> TrackerSamples.Count {
        let found = answer["found"] as? [[String: Any]] ?? [], notFound = answer["notFound"] as? [[String: Any]] ?? []
        let episodes = found.reduce(0) { $0 + ($1["episodes"] as? Int ?? 0) + ($1["notOnTVmaze"] as? Int ?? 0) }
            + notFound.reduce(0) { $0 + ($1["episodes"] as? Int ?? 0) }
        return TrackerSamples.Count(shows: found.count + notFound.count, episodes: episodes)
    }

    /// `chosen`: a show the replay does not know, named by hand as Under the Dome, so something is kept.
    @Test(arguments: [("trakt/export-2026", "trakt-zip", "trakt-export.zip", "Friends"),
                      ("tvtime/export-2026-anonymized", "tvtime-zip", "tvtime.zip", "Elite")])
    func aZipThroughTheAPIIsReadAsTheIndependentCountReadsIt(folder: String, sample: String, name: String, chosen: String) async throws {
        let zip = try await TrackerSamples.zip(folder)
        let expected = try #require(try await TrackerSamples.counts()[sample])
        try await SeriesPagesTests().withServer { server, _, client in
            server.advance(by: WatchedPagesTests.aYearOn)
            let admin = try await AccountTests.admin(client)
            let token = try await CredentialTests.token("admin", by: admin, client)
            func post(_ query: String) async throws -> [String: Any] {
                let response = try await client.execute(uri: "/api/history/import?name=\(name)&choose=\(chosen)%3D1" + query, method: .post,
                                                        headers: [.authorization: "Bearer \(token)", .contentType: "application/zip"],
                                                        body: ByteBuffer(bytes: zip))
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
            let preview = try await post("&preview=true")
            #expect(Self.read(preview) == expected, "\(preview)")
            let profile = try #require(try await server.store.profiles().first).id
            #expect(try await server.store.watched(by: profile, show: nil).isEmpty)
            // Kept: every episode of a show TVmaze found (the replay knows few), each once; again, nothing new.
            let done = try await post("")
            let found = (done["found"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["episodes"] as? Int ?? 0) }
            #expect(found > 0 && done["marked"] as? Int == found, "\(done)")
            #expect(try await server.store.watched(by: profile, show: nil).count == found)
            #expect(try await post("")["marked"] as? Int == 0)
        }
    }

    /// The page: TV Time's zip uploaded, its preview's counts the independent count's, then kept. And TV Time's episodes CSV
    /// under the name TV Time's API gives it (`history.csv`): its unwatched rows are not marked.
    @Test func aZipAndARenamedCSVThroughThePage() async throws {
        let counts = try await TrackerSamples.counts()
        let zip = try await TrackerSamples.zip("tvtime/export-2026-anonymized")
        let episodesCSV = try [UInt8](Data(contentsOf: TrackerSamples.fixtures
            .appendingPathComponent("trackers/tvtime/export-2026-anonymized/tvtime-series-episodes.csv")))
        try await SeriesPagesTests().withServer { server, _, client in
            server.advance(by: WatchedPagesTests.aYearOn)
            let jar = try await AccountTests.admin(client)
            func settled(_ page: String) async throws -> String {
                // Matched on TVmaze in the background, at the pace of tvguide's share of TVmaze's (8 requests in 10 s).
                for _ in 0..<600 {
                    let response = try await jar.send(client, page)
                    if response.headers[HTTPField.Name("Refresh")!] == nil { return String(buffer: response.body) }
                    try await Task.sleep(for: .milliseconds(200))
                }
                return ""
            }
            /// The preview's "N shows, M episodes found on TVmaze, K not.", as a count.
            func previewed(_ file: (String, [UInt8])) async throws -> (TrackerSamples.Count, page: String, token: String) {
                let uploaded = try await jar.upload(client, "/history/import", files: [("export", file.0, file.1)])
                let page = try #require(uploaded.headers[.location], "\(String(buffer: uploaded.body))")
                let preview = try await settled(page)
                let said = try #require(preview.firstMatch(of: /(\d+) shows?, (\d+) episodes? found on TVmaze(?:, (\d+) not)?\./), "\(preview)")
                let token = try #require(preview.firstMatch(of: /name="token" value="([0-9a-f]{64})"/)).output.1
                return (TrackerSamples.Count(shows: Int(said.output.1)!, episodes: Int(said.output.2)! + (said.output.3.flatMap { Int($0) } ?? 0)),
                        page, String(token))
            }
            let tvTime = try await previewed(("tvtime-export-2026.zip", zip))
            #expect(tvTime.0 == counts["tvtime-zip"])
            let confirmed = try await jar.send(client, "/history/import/confirm", method: .post, form: ["token": tvTime.token, "follow": "1"])
            #expect(confirmed.status == .seeOther)
            #expect(try await settled(tvTime.page).contains("Imported: "))

            // TV Time's episodes CSV named as its API names it: read as TV Time's, so is_watched holds.
            let renamed = try await previewed(("history.csv", episodesCSV))
            let unwatched = try #require(counts["tvtime-csv-unwatched"]).episodes
            #expect(unwatched > 0, "the sample has rows not watched, which an importer ignoring is_watched would mark")
            let independent = try #require(counts["tvtime-csv"])
            #expect(renamed.0.episodes == independent.episodes, "the unwatched rows are not counted as watched")
        }
    }
}
