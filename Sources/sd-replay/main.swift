import Foundation
import GuideCore
import SchedulesDirectReplay

// Test support for the browser tests and scripts/bench: a stand-in for Schedules Direct on 127.0.0.1 answering with SD's
// recorded answers (SchedulesDirectReplay) for the account tvguide-test / "correct horse", its schedules starting on the
// day given as the first argument (YYYY-MM-DD), its lineups holding the number of stations given as the second (3, the
// recorded map's, by default), until killed. Prints `sd-replay listening at BASE` once it listens.
let stations = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 3
let standIn = try await SchedulesDirectStandIn(stations: stations, now: GuideClock.system().now)
if let day = CommandLine.arguments.dropFirst().first { standIn.schedulesStart(on: day) }
FileHandle.standardOutput.write(Data("sd-replay listening at \(standIn.base)\n".utf8))

while true { try await Task.sleep(for: .seconds(3600)) }
