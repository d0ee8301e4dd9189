import Foundation

/// How `serve` keeps what depends on the listings current: `work` runs after every import (a new generation of the
/// listings, looked for each minute) and at least every `interval` (time moves on too), until the task is cancelled.
/// A failure is handed to `failed` and tried again at the next turn.
public func afterEveryImport(of store: any ListingStore, atLeastEvery interval: TimeInterval, now: @escaping @Sendable () -> Date,
                             clock: any Clock<Duration>, _ work: () async throws -> Void, failed: (any Error) -> Void) async {
    var seen: Int64?
    var last = Date.distantPast
    while !Task.isCancelled {
        do {
            let generation = try await store.version().generation
            if generation != seen || now().timeIntervalSince(last) >= interval {
                try await work()
                (seen, last) = (generation, now())
            }
        } catch {
            failed(error)
        }
        try? await clock.sleep(for: .seconds(60))
    }
}
