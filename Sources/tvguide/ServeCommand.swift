import ArgumentParser
import Foundation
import GuideCore
import GuideIngest
import GuideServer
import GuideStore
import Hummingbird

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the guide's JSON API (the web pages come next).",
        discussion: "With an empty database it first imports the bundled sample listings, so there is always a guide to see."
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The address to listen on; 0.0.0.0 for every interface.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The port to listen on.", valueName: "port"))
    var port = 8080

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be from 1 to 65535") }
    }

    func run() async throws {
        let database = try store.open()
        if try CLIFailure.translating({ try database.counts().programmes }) == 0, let sample = GuideServer.sampleListings {
            Output.error("The guide is empty: importing the bundled sample listings (\(sample.lastPathComponent)) ...")
            let summary = try CLIFailure.translating {
                try ListingImporter(store: database).importFile(at: sample.path, as: SourceName("sample"))
            }
            Output.error("Imported \(summary.programmes) programmes on \(summary.channels) channels. Add your own: tvguide import FILE-OR-URL")
        }
        Output.error("tvguide: serving http://\(host):\(port)/ (API at /api), database \(store.path)")
        try await GuideServer.application(store: database, host: host, port: port).runService()
    }
}
