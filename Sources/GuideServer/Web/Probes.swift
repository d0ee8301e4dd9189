import Foundation
import GuideStore
import HTTPTypes
import Hummingbird

/// What service managers, containers and load balancers ask: `/healthz`, whether the process answers at all (it
/// touches nothing), and `/readyz`, whether it can serve the guide (the store answers and holds listings); 503 with
/// the reason otherwise. Neither is cached.
struct Probes: Sendable {
    let store: any GuideDatabase

    func register(on routes: RouteGroups) {
        routes.open.get(.healthz) { _, _ in Self.answer(.ok, ["status": "alive"]) }
        routes.open.get(.readyz) { _, _ in await ready() }
    }

    private func ready() async -> Response {
        do {
            let version = try await store.version()
            guard try await store.coverage() != nil else {
                return Self.answer(.serviceUnavailable, ["status": "not ready", "reason": "the guide holds no listings yet"])
            }
            return Self.answer(.ok, ["status": "ready", "generation": version.generation])
        } catch {
            return Self.answer(.serviceUnavailable, ["status": "not ready", "reason": "the database does not answer: \(error)"])
        }
    }

    private static func answer(_ status: HTTPResponse.Status, _ body: [String: any Sendable]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Every request's id and line in the log: `X-Request-Id` on every response (the id Hummingbird gives the request and
/// puts in its log lines, so an answer a user reports can be found), and, when it is done, one `info` line with its
/// method, path, status and milliseconds. The path is logged without its query, and a feed's secret address
/// (`/xmltv/TOKEN.xml`, `/calendar/TOKEN.ics`) without its token.
struct RequestLog<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.header] = context.id
        let elapsed = ContinuousClock.now - started
        context.logger.info("request", metadata: [
            "method": .string(request.method.rawValue), "path": .string(Self.shown(request.uri.path)),
            "status": .stringConvertible(response.status.code),
            "ms": .stringConvertible(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15),
        ])
        return response
    }

    /// `path` as the log shows it: a secret feed address's token left out.
    static func shown(_ path: String) -> String {
        // The feeds whose file name, or first segment, is a secret: `/xmltv/`, `/calendar/`, `/hdhomerun/`.
        for prefix in [SitePath.lineupFeed.path, SitePath.calendarFeed.path, SitePath.tuner.path].map({ "/" + $0.pattern.prefix { $0 != ":" } }) where path.hasPrefix(prefix) && path.count > prefix.count {
            let file = path.dropFirst(prefix.count)
            let ending = file.firstIndex(where: { $0 == "." || $0 == "/" }).map { String(file[$0...]) } ?? ""
            return prefix + "TOKEN" + ending
        }
        return path
    }
}
