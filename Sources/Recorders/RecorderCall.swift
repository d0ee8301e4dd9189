import Foundation
import GuideCore
import GuideHTTP

/// One call to a recorder's HTTP API, made by ``JSONCall`` (the answer bounded to 4 MB and the call to 15 s, a user name
/// and password answered to the recorder's challenge only), a key sent as the API wants it. A recorder that does not
/// answer is ``RecorderError/Kind/unreachable``; one that answers no, ``RecorderError/Kind/refused``.
struct RecorderCall: Sendable {
    let transport: any HTTPTransport
    /// The recorder's address: `http://192.168.1.5:9981`, without a closing slash.
    let base: String
    var credentials: HTTPCredentials?
    /// Headers every call carries (an API key's).
    var headers: [(String, String)] = []
    /// What the recorder is called in messages.
    let kind: String
    static let largestAnswer = 4 << 20

    /// How long one call may take, its answer included.
    static let deadline: Duration = .seconds(15)

    private var call: JSONCall {
        JSONCall(transport: transport, credentials: credentials, headers: headers, largest: Self.largestAnswer, deadline: Self.deadline)
    }

    /// `method` on `path` (with its query), `form` sent as `application/x-www-form-urlencoded` or `json` as JSON; the
    /// answer's body, status 2xx.
    func send(_ method: String, _ path: String, form: [(String, String)]? = nil, json: Data? = nil) async throws(RecorderError) -> Data {
        do {
            return try await call.send(method, base + path, body: Self.body(form: form, json: json))
        } catch {
            throw failure(error, path: path)
        }
    }

    /// The answer decoded as `T`.
    func decode<T: Decodable>(_ type: T.Type, _ method: String, _ path: String, form: [(String, String)]? = nil,
                              json: Data? = nil) async throws(RecorderError) -> T {
        do {
            return try await call.decode(T.self, method, base + path, body: Self.body(form: form, json: json))
        } catch {
            throw failure(error, path: path)
        }
    }

    private static func body(form: [(String, String)]?, json: Data?) -> JSONCall.Body {
        if let form { return .form(form) }
        return json.map { .json($0) } ?? .none
    }

    /// A call's failure in the words every recorder uses: unreachable (it may answer later: sent again) or refused.
    private func failure(_ failure: JSONCall.Failure, path: String) -> RecorderError {
        let recorder = "\(kind)"
        switch failure {
        case .notAnAddress: return RecorderError(.refused, saying: "{address} is not an address", ["address": base + path])
        case .refused(let refusal): return RecorderError(.refused, Sentence(refusal))
        case .challenge(let challenge): return RecorderError(.refused, saying: "{recorder} asks for {challenge}", ["recorder": recorder, "challenge": "\(challenge)"])
        case .unreachable(let error):
            return RecorderError(.unreachable, saying: "{recorder} at {address} did not answer ({error})", ["recorder": recorder, "address": base, "error": "\(error)"])
        case .timedOut(let limit):
            return RecorderError(.unreachable, saying: "the recorder took longer than {seconds} s", ["seconds": "\(limit.components.seconds)"])
        case .tooLarge(let limit):
            return RecorderError(.unexpected, saying: "{recorder} answered {path} with more than {size} MB", ["recorder": recorder, "path": path, "size": "\(limit >> 20)"])
        case .status(401, _), .status(403, _):
            return credentials == nil && headers.isEmpty
                ? RecorderError(.refused, saying: "{recorder} refused the request: it needs a user name and password", ["recorder": recorder])
                : RecorderError(.refused, saying: "{recorder} refused the user name, password or key", ["recorder": recorder])
        case .status(let status, _) where (500...599).contains(status):
            return RecorderError(.unreachable, saying: "{recorder} answered HTTP {status}", ["recorder": recorder, "status": "\(status)"])
        case .status(let status, let answer):
            return answer.isEmpty ? RecorderError(.refused, saying: "{recorder} answered HTTP {status}", ["recorder": recorder, "status": "\(status)"])
                : RecorderError(.refused, saying: "{recorder} answered HTTP {status}: {answer}", ["recorder": recorder, "status": "\(status)", "answer": answer])
        case .undecodable(let error):
            return RecorderError(.unexpected, saying: "{recorder} did not answer {path} as its API does: {error}", ["recorder": recorder, "path": path, "error": "\(error)"])
        }
    }
}
