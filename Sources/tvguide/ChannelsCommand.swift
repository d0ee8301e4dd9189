import ArgumentParser
import GuideCore
import GuideStore

struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "channels", abstract: Output.words("List the guide's channels."))

    @OptionGroup var store: StoreOptions

    @Flag(help: .words("Print JSON."))
    var json = false

    struct Document: Encodable {
        var id: String
        var name: String
        var names: [LocalizedText]
        var number: String?
        var icon: String?
        /// From the playlist describing it (an M3U source): its groups and its stream's address.
        var groups: [String]
        var stream: String?
    }

    func run() async throws {
        let (stored, playlist) = try await store.withDatabase { database in
            let channels = try await database.channels()
            return (channels, try await PlaylistMatch.read(database, for: channels).entries)
        }
        let channels = stored.map { $0.described(by: playlist[$0.id]) }
        if json {
            try Output.json(channels.map {
                Document(id: $0.id.rawValue, name: $0.name, names: $0.displayNames, number: $0.number, icon: $0.icons.first?.src,
                         groups: playlist[$0.id]?.groups ?? [], stream: playlist[$0.id]?.stream)
            })
            return
        }
        guard !channels.isEmpty else {
            Output.error(Output.words("The guide has no channels yet. Import listings first: tvguide import FILE-OR-URL"))
            return
        }
        let width = min(40, channels.map(\.id.rawValue.count).max() ?? 0)
        for channel in channels {
            let id = channel.id.rawValue.padding(toLength: max(width, channel.id.rawValue.count), withPad: " ", startingAt: 0)
            Output.line("\(id)  \(channel.number.map { "\($0)  " } ?? "")\(channel.name)")
        }
    }
}
