import Synchronization

/// Long-lived things held open at once (connections, server-sent event streams), at most `total` in all and
/// `perClient` for one client address: one beyond either is turned away instead of holding a connection and a task.
public final class OpenSlots: Sendable {
    public let total: Int
    public let perClient: Int
    private let open = Mutex<(total: Int, byClient: [String: Int])>((0, [:]))

    public init(total: Int, perClient: Int) {
        self.total = total
        self.perClient = perClient
    }

    /// Takes a slot for `client`; false when none is free.
    public func take(_ client: String) -> Bool {
        open.withLock { open in
            guard open.total < total, open.byClient[client, default: 0] < perClient else { return false }
            open.total += 1
            open.byClient[client, default: 0] += 1
            return true
        }
    }

    /// A slot taken for `client`, given back when the hold is released (whoever held it last): a stream's body that
    /// is never written still frees its slot.
    public final class Hold: Sendable {
        let slots: OpenSlots
        let client: String

        init(_ slots: OpenSlots, _ client: String) {
            self.slots = slots
            self.client = client
        }

        deinit { slots.give(back: client) }
    }

    /// A ``Hold`` on a slot for `client`; nil when none is free.
    public func hold(_ client: String) -> Hold? {
        take(client) ? Hold(self, client) : nil
    }

    public func give(back client: String) {
        open.withLock { open in
            open.total -= 1
            let left = open.byClient[client, default: 1] - 1
            open.byClient[client] = left > 0 ? left : nil
        }
    }
}
