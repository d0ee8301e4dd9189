/// At most `count` bodies run at once; the rest wait, without a thread, in the order they came. One slot is a lock
/// that can be held across suspension points (a Mutex cannot): SQLite's write transactions; several bound
/// downloads.
public actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(_ count: Int) {
        free = max(1, count)
    }

    /// Runs `body` in a slot, waiting for one first if none is free.
    public nonisolated func run<T>(_ body: () async throws -> T) async throws -> T {
        await take()
        do {
            let result = try await body()
            await give()
            return result
        } catch {
            await give()
            throw error
        }
    }

    private func take() async {
        if free > 0 {
            free -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    private func give() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
