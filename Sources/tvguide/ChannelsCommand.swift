import ArgumentParser
import GuideCore

struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "channels", abstract: "List the guide's channels.")

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    struct Document: Encodable {
        var id: String
        var name: String
        var names: [LocalizedText]
        var number: String?
        var icon: String?
    }

    func run() async throws {
        let channels = try await store.withDatabase { try await $0.channels() }
        if json {
            try Output.json(channels.map {
                Document(id: $0.id.rawValue, name: $0.name, names: $0.displayNames, number: $0.number, icon: $0.icons.first?.src)
            })
            return
        }
        guard !channels.isEmpty else {
            Output.error("The guide has no channels yet. Import listings first: tvguide import FILE-OR-URL")
            return
        }
        let width = min(40, channels.map(\.id.rawValue.count).max() ?? 0)
        for channel in channels {
            let id = channel.id.rawValue.padding(toLength: max(width, channel.id.rawValue.count), withPad: " ", startingAt: 0)
            Output.line("\(id)  \(channel.number.map { "\($0)  " } ?? "")\(channel.name)")
        }
    }
}
