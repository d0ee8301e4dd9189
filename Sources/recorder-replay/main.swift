import BoxesReplay
import Foundation

// Test support for the browser tests: a stand-in for a Tvheadend recorder on 127.0.0.1 (BoxesReplay's TvheadendStandIn:
// its JSON API as documented, Digest sign-in as tvguide / "hunter2 & more"), its channels and EPG read from the JSON
// file given as the first argument: {"channels": [{"uuid", "name", "number"}], "events": [{"id", "channel", "title",
// "start", "stop"}]} (times in Unix seconds). Prints `recorder-replay listening at BASE` once it listens; runs until
// killed.
struct Guide: Decodable {
    struct Channel: Decodable { var uuid: String; var name: String; var number: Int }
    struct Event: Decodable { var id: Int64; var channel: String; var title: String; var start: Int64; var stop: Int64 }
    var channels: [Channel]
    var events: [Event]
}

guard let path = CommandLine.arguments.dropFirst().first, let data = FileManager.default.contents(atPath: path),
      let guide = try? JSONDecoder().decode(Guide.self, from: data) else {
    FileHandle.standardError.write(Data("usage: recorder-replay GUIDE.json\n".utf8))
    exit(2)
}
let standIn = try await TvheadendStandIn()
standIn.setGuide(channels: guide.channels.map { .init(uuid: $0.uuid, name: $0.name, number: $0.number) },
                 events: guide.events.map { .init(id: $0.id, channel: $0.channel, title: $0.title, start: $0.start, stop: $0.stop) })
FileHandle.standardOutput.write(Data("recorder-replay listening at http://127.0.0.1:\(standIn.port)\n".utf8))

while true { try await Task.sleep(for: .seconds(3600)) }
