import Foundation
import GuideCore
import GuideHTTP

/// One JSON request to a box on the user's network or its vendor's service (an HDHomeRun, an Enigma2 receiver): the
/// answer bounded, the status checked, the user name and password (if any) answered to the box's challenge only,
/// and `address` shown in messages as `shown` says (without a key it carries).
struct BoxRequest {
    let transport: any HTTPTransport
    var credentials: HTTPCredentials?
    /// What the box is called in messages ("an HDHomeRun", "an Enigma2 receiver").
    let kind: Sentence
    static let largestAnswer = 16 << 20

    func json<T: Decodable>(_ address: String, shown: (String) -> String = { $0 }) async throws -> T {
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw IngestError(.download, saying: "{address} is not an http(s) address", ["address": shown(address)])
        }
        let headers = [("Accept", "application/json"), ("User-Agent", "tvguide/\(TVGuideVersion.number)")]
        let reply: HTTPReply
        do {
            reply = try await transport.send("GET", url, headers: headers, body: nil, answering: credentials)
        } catch let error as UnanswerableChallenge {
            throw IngestError(.download, saying: "{address} asks for {challenge}", ["address": shown(address), "challenge": "\(error)"])
        }
        guard let body = try await reply.body(upTo: Self.largestAnswer) else {
            throw IngestError(.download, saying: "{address} answered with more than {megabytes} MB",
                              ["address": shown(address), "megabytes": String(Self.largestAnswer >> 20)])
        }
        switch reply.status {
        case 200: break
        case 401, 403:
            throw credentials == nil
                ? IngestError(.download, saying: "{address} answered {status}: it needs a user name and password",
                              ["address": shown(address), "status": String(reply.status)])
                : IngestError(.download, saying: "{address} answered {status}: its user name, password or key was refused",
                              ["address": shown(address), "status": String(reply.status)])
        default:
            throw IngestError(.download, saying: "{address} answered HTTP {status}", ["address": shown(address), "status": String(reply.status)])
        }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw IngestError(.unknownFormat, saying: "{address} did not answer as {kind} does: {error}", ["address": shown(address), "error": "\(error)"],
                              sentences: ["kind": kind])
        }
    }
}
