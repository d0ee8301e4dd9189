import Foundation
import TVMazeReplay

// Test support for the browser tests: TVmaze's recorded answers on 127.0.0.1 (port from the first argument, else
// any free one), until killed. Prints `tvmaze-replay listening on PORT` once it listens.
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
let server = try await ReplayServer(port: port)
FileHandle.standardOutput.write(Data("tvmaze-replay listening on \(server.port)\n".utf8))

while true { try await Task.sleep(for: .seconds(3600)) }
