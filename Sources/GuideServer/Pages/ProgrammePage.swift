import Foundation
import GuideCore
import Hummingbird

/// `/programmes/ID`: one airing's details as a page of its own; with `?part=panel`, just the panel the grid's
/// script shows over the grid.
struct ProgrammePage: Sendable {
    let site: Site

    struct Model {
        var chrome: Chrome
        var title: String
        var panel: ProgrammeDetails
        var isPage: Bool
    }

    func register(on router: Router<GuideRequestContext>) {
        router.get("programmes/:id") { request, context in try await render(request, context) }
    }

    func render(_ request: Request, _ context: GuideRequestContext) async throws -> HTMLPage {
        guard let text = context.parameters.get("id"), let id = Bounded.integer(text, in: 1...Int64.max) else {
            throw HTTPError(.badRequest, message: "A programme's address ends in its number, like /programmes/42.")
        }
        let isPanel = request.uri.queryParameters.get("part") == "panel"
        let clock = site.clock(context)
        let site = self.site
        guard let stored = try await site.store.programme(ProgrammeID(rawValue: id)) else {
            throw HTTPError(.notFound, message: "There is no programme \(id): a newer import may have replaced it.")
        }
        let details = try await ProgrammeDetails(stored, site: site, clock: clock, now: site.settings.now())
        let model = await Model(chrome: site.chrome(context, section: "guide"), title: details.title, panel: details, isPage: !isPanel)
        return try site.page(isPanel ? "panel" : "programme", model)
    }
}
