import Foundation
import GuideCore
import GuideStore
import Hummingbird

/// What an API route reads of its request: a JSON body of the right shape, or a file as it is.
extension GuideContext {
    /// The request's body as bytes (a file uploaded as it is), up to the route's upload limit (413 past it).
    func fileBody(of request: Request) async throws -> [UInt8] {
        Array(buffer: try await body(of: request))
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
        let body = try await body(of: request)
        guard body.readableBytes > 0 else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw HTTPError(.badRequest, message: "the body is not the JSON this route takes: see /openapi.json")
        }
    }
}
