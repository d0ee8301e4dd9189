import Foundation
import GuideCore
import GuideHTTP

/// One JSON request to a box on the user's network or its vendor's service (an HDHomeRun, an Enigma2 receiver), made
/// by ``JSONCall`` (the answer bounded, the whole request within ``deadline``, the user name and password, if any,
/// answered to the box's challenge only), and `address` shown in messages as `shown` says (without a key it carries).
struct BoxRequest {
    let transport: any HTTPTransport
    var credentials: HTTPCredentials?
    /// What the box is called in messages ("an HDHomeRun", "an Enigma2 receiver").
    let kind: Sentence
    static let largestAnswer = 16 << 20

    /// How long one request may take, its answer included (a lineup's guide is a few megabytes).
    static let deadline: Duration = .seconds(120)

    func json<T: Decodable>(_ address: String, shown: (String) -> String = { $0 }) async throws -> T {
        do {
            return try await JSONCall(transport: transport, credentials: credentials, largest: Self.largestAnswer, deadline: Self.deadline)
                .decode(T.self, "GET", address)
        } catch {
            throw failure(error, shown(address))
        }
    }

    /// A request's failure as an import says it; a refusal by the outbound policy, or no answer at all, as it came.
    private func failure(_ failure: JSONCall.Failure, _ address: String) -> any Error {
        switch failure {
        case .notAnAddress: IngestError(.download, saying: "{address} is not an http(s) address", ["address": address])
        case .refused(let refusal): refusal
        case .unreachable(let error): error
        case .challenge(let challenge): IngestError(.download, saying: "{address} asks for {challenge}", ["address": address, "challenge": "\(challenge)"])
        case .timedOut: IngestError(.download, saying: "{location} did not answer in time", ["location": address])
        case .tooLarge(let limit):
            IngestError(.download, saying: "{address} answered with more than {megabytes} MB", ["address": address, "megabytes": String(limit >> 20)])
        case .status(let status, _) where status == 401 || status == 403:
            credentials == nil
                ? IngestError(.download, saying: "{address} answered {status}: it needs a user name and password", ["address": address, "status": String(status)])
                : IngestError(.download, saying: "{address} answered {status}: its user name, password or key was refused",
                              ["address": address, "status": String(status)])
        case .status(let status, _): IngestError(.download, saying: "{address} answered HTTP {status}", ["address": address, "status": String(status)])
        case .undecodable(let error):
            IngestError(.unknownFormat, saying: "{address} did not answer as {kind} does: {error}", ["address": address, "error": "\(error)"],
                        sentences: ["kind": kind])
        }
    }
}
