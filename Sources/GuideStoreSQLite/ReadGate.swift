import Synchronization

/// Where the store's reads wait while a first import has the file to itself
/// (``SQLiteListingStore/takeForFirstImport()``). The file is then in the rollback journal's mode, where a read beside
/// the import's writes would wait on SQLite's lock for at most the busy timeout (10 s) and then fail: an import of a
/// large guide takes longer, and the command line refreshes several sources at once, one importing while the others
/// read. Held here, a read waits for the import's end instead, without a thread. Open, passing costs a read one
/// uncontended lock.
///
/// The reads waiting are at most those the process has under way at once (a few sources' refreshes on the command
/// line; serve's store never closes its gate, ``ImportReaders/alongside``).
final class ReadGate: Sendable {
    private struct State {
        /// Imports holding it closed: two sources' first imports may each close it before either knows whether it
        /// took the file, and the one that did not must not open it under the other.
        var holders = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether reads wait now.
    var isClosed: Bool { state.withLock { $0.holders > 0 } }

    /// Returns at once while the gate is open; otherwise when it opens.
    func pass() async {
        guard isClosed else { return }
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.holders > 0 { state.waiting.append(continuation) }
                return state.holders == 0
            }
            if open { continuation.resume() }
        }
    }

    /// Reads from now on wait until every ``close()`` has had its ``open()``.
    func close() {
        state.withLock { $0.holders += 1 }
    }

    /// One close undone; with none left, the waiting reads go on, and those after them pass.
    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holders = max(0, state.holders - 1)
            guard state.holders == 0 else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
