import Foundation
import GuideCore
import GuideHTTP

/// One call to a recorder's HTTP API: the answer bounded (4 MB), its status read, a user name and password answered to
/// the recorder's challenge only (Digest or Basic, never sent unasked), a key sent as the API wants it. A recorder that
/// does not answer is ``RecorderError/Kind/unreachable``; one that answers no, ``RecorderError/Kind/refused``.
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

    /// `method` on `path` (with its query), `form` sent as `application/x-www-form-urlencoded` or `json` as JSON; the
    /// answer's body, status 2xx.
    func send(_ method: String, _ path: String, form: [(String, String)]? = nil, json: Data? = nil) async throws -> Data {
        guard let url = URL(string: base + path) else { throw RecorderError(.refused, saying: "{address} is not an address", ["address": base + path]) }
        var headers = self.headers + [("Accept", "application/json"), ("User-Agent", "tvguide/\(TVGuideVersion.number)")]
        var body: Data?
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Data(Self.encoded(form).utf8)
        } else if let json {
            headers.append(("Content-Type", "application/json"))
            body = json
        }
        do {
            let reply = try await transport.send(method, url, headers: headers, body: body, answering: credentials)
            guard let answer = try await reply.body(upTo: Self.largestAnswer) else {
                throw RecorderError(.unexpected, saying: "{recorder} answered {path} with more than {size} MB", ["recorder": "\(kind)", "path": path, "size": "\(Self.largestAnswer >> 20)"])
            }
            switch reply.status {
            case 200...299: return answer
            case 401, 403:
                throw credentials == nil && self.headers.isEmpty
                    ? RecorderError(.refused, saying: "{recorder} refused the request: it needs a user name and password", ["recorder": "\(kind)"])
                    : RecorderError(.refused, saying: "{recorder} refused the user name, password or key", ["recorder": "\(kind)"])
            case 500...599:
                throw RecorderError(.unreachable, saying: "{recorder} answered HTTP {status}", ["recorder": "\(kind)", "status": "\(reply.status)"])
            default:
                let text = String(decoding: answer.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                throw text.isEmpty ? RecorderError(.refused, saying: "{recorder} answered HTTP {status}", ["recorder": "\(kind)", "status": "\(reply.status)"])
                    : RecorderError(.refused, saying: "{recorder} answered HTTP {status}: {answer}", ["recorder": "\(kind)", "status": "\(reply.status)", "answer": text])
            }
        } catch let error as RecorderError {
            throw error
        } catch let error as OutboundRefusal {
            throw RecorderError(.refused, Sentence(error))
        } catch let error as UnanswerableChallenge {
            throw RecorderError(.refused, saying: "{recorder} asks for {challenge}", ["recorder": "\(kind)", "challenge": "\(error)"])
        } catch {
            throw RecorderError(.unreachable, saying: "{recorder} at {address} did not answer ({error})", ["recorder": "\(kind)", "address": base, "error": "\(error)"])
        }
    }

    /// The answer decoded as `T`.
    func decode<T: Decodable>(_ type: T.Type, _ method: String, _ path: String, form: [(String, String)]? = nil,
                              json: Data? = nil) async throws -> T {
        let data = try await send(method, path, form: form, json: json)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw RecorderError(.unexpected, saying: "{recorder} did not answer {path} as its API does: {error}", ["recorder": "\(kind)", "path": path, "error": "\(error)"])
        }
    }

    static func encoded(_ fields: [(String, String)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return fields.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
