import Foundation
import TVMazeReplay

// Test support for the browser tests and benchmarks: TVmaze's recorded answers on 127.0.0.1 (port from the first
// argument, else any free one; copies of Under the Dome from the second, see ReplayServer's clones), until killed.
// Prints `tvmaze-replay listening on PORT` once it listens.
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
let clones = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) }.map { min(max($0, 0), 5_000) } ?? 0
let server = try await ReplayServer(port: port, clones: clones)
FileHandle.standardOutput.write(Data("tvmaze-replay listening on \(server.port)\n".utf8))

while true { try await Task.sleep(for: .seconds(3600)) }
