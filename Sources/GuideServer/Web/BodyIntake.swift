import Hummingbird
import NIOCore
import Synchronization

/// How large a body a route takes, by who sends it. A guest, who has proved nothing, gets the smallest whatever the
/// route; a signed-in profile or an API token gets the route's.
enum BodySize: Sendable {
    /// A form or a JSON call: 64 KiB.
    case form
    /// A tracker's export, uploaded (`/history/import`): 50 MiB.
    case file

    /// What a guest may send anywhere: 16 KiB (the sign-in and setup forms are well under 1 KiB).
    static let guest = 16 << 10

    func limit(signedIn: Bool) -> Int {
        guard signedIn else { return Self.guest }
        switch self {
        case .form: return 64 << 10
        case .file: return 50 << 20
        }
    }
}

/// The memory request bodies hold while they are read and handled, bounded for the whole server
/// (``ServerSettings/bodiesInFlight``). A request takes its share as its bytes arrive (its declared length at once,
/// when it declares one) and gives it back when its answer is made; a body that would pass the bound is refused with
/// 503 and `Retry-After` before more of it is read (and its connection closed: ``ConnectionGuard``).
final class BodyIntake: Sendable {
    let bound: Int
    private let held = Mutex(0)

    init(bound: Int) {
        self.bound = bound
    }

    /// Bytes held by bodies now.
    var inFlight: Int { held.withLock { $0 } }

    /// One request's share, given back once (``Ticket/giveBack()``).
    func ticket() -> Ticket { Ticket(intake: self) }

    fileprivate func take(_ bytes: Int) -> Bool {
        held.withLock { held in
            guard bytes <= bound - held else { return false }
            held += bytes
            return true
        }
    }

    fileprivate func give(back bytes: Int) {
        held.withLock { $0 -= bytes }
    }

    /// What one request holds of the bound.
    final class Ticket: Sendable {
        private let intake: BodyIntake
        private let taken = Mutex(0)

        fileprivate init(intake: BodyIntake) {
            self.intake = intake
        }

        fileprivate func take(_ bytes: Int) -> Bool {
            taken.withLock { taken in
                guard intake.take(bytes) else { return false }
                taken += bytes
                return true
            }
        }

        func giveBack() {
            let bytes = taken.withLock { taken in defer { taken = 0 }; return taken }
            intake.give(back: bytes)
        }

        /// `request`'s body, read once its caller has been admitted: at most `limit` bytes (413 past it: at once when
        /// its declared length says so, before a byte is read) and within the server's bound (503).
        func read(_ request: Request, upTo limit: Int) async throws -> ByteBuffer {
            // A declared length is taken at once (a bound that cannot hold it refuses before reading); a length past
            // Int is past any limit, and one that is no number is no request; a chunked body is counted as it comes.
            var declared: Int?
            if let text = request.headers[.contentLength] {
                guard text.utf8.allSatisfy({ (48...57).contains($0) }), !text.isEmpty else {
                    throw HTTPError(.badRequest, message: "Content-Length is not a number")
                }
                guard let length = Int(text), length <= limit else { throw Self.tooLarge(limit) }
                declared = length
            }
            if let declared, !take(declared) { throw Self.busy }
            var body = ByteBuffer()
            body.reserveCapacity(declared ?? 0)
            for try await part in request.body {
                let size = body.readableBytes + part.readableBytes, held = max(body.readableBytes, declared ?? 0)
                guard size <= limit else { throw Self.tooLarge(limit) }
                if size > held, !take(size - held) { throw Self.busy }
                body.writeImmutableBuffer(part)
            }
            return body
        }

        private static func tooLarge(_ limit: Int) -> Refusal {
            Refusal(.contentTooLarge, saying: "This takes at most {size} KB.", ["size": String(limit >> 10)])
        }

        private static let busy = Refusal(.serviceUnavailable, headers: [.retryAfter: "30"],
                                          saying: "The server is reading other uploads; try again in a minute.")
    }
}
