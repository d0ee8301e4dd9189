import Foundation
import GuideCore
import GuideStore
import Hummingbird

/// What every changing API route checks first: a token, not a cookie, and a JSON body of the right shape.
extension GuideRequestContext {
    /// The profile whose API token the request carries, when the token may do `scope`; 401 for a session cookie or
    /// nothing, since another site can make a browser send cookies but not a token; 403 for a token of a narrower scope.
    func tokenProfile(allowing scope: APIToken.Scope) throws -> Profile {
        guard let viewer, case .apiToken(let granted) = viewer.credential else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                            message: "changes need Authorization: Bearer with an API token (an admin creates them on /admin)")
        }
        guard granted >= scope else {
            throw HTTPError(.forbidden, message: "this token's scope is \(granted.rawValue); this needs a token with scope \(scope.rawValue)")
        }
        return viewer.profile
    }

    /// The request's JSON body as `type`; 400 when it is something else.
    func decodeBody<T: Decodable>(_ type: T.Type, of request: Request) async throws -> T {
        guard let body = try await decodeBodyIfPresent(type, of: request) else {
            throw HTTPError(.badRequest, message: "this route takes a JSON body: see /openapi.json")
        }
        return body
    }

    /// As ``decodeBody(_:of:)``, but nil for an empty body.
    func decodeBodyIfPresent<T: Decodable>(_ type: T.Type, of request: Request) async throws -> T? {
        var request = request
        let body = try await request.collectBody(upTo: maxUploadSize)
        guard body.readableBytes > 0 else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw HTTPError(.badRequest, message: "the body is not the JSON this route takes: see /openapi.json")
        }
    }
}
