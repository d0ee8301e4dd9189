import Catalogs
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird

/// Errors on pages become pages: a readable message with a way back, or a trip to the sign-in page when a page
/// needs a profile. The JSON API keeps its JSON errors.
struct ErrorPages: RouterMiddleware {
    typealias Context = GuideRequestContext
    let renderer: PageRenderer
    let assets: StaticAssets
    let translations: Translations
    /// Runs after this middleware: asked again here for who the page is for and how they read.
    let sessions: SessionMiddleware

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var status: Int
        var message: String
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let required as SignInRequired {
            let back = required.returnTo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"
            return Response.redirect(to: SitePath.signIn(query: "next=\(back)"))
        } catch is SessionMiddleware.FormTokenRefused {
            return try await page(request, context) { words in
                HTTPError(.forbidden, message: words("This form is out of date or came from another site. Go back, reload the page and try again."))
            }
        } catch let error as FieldError {
            return try await page(request, context) { words in HTTPError(.badRequest, message: error.message(words)) }
        } catch let error as StoreError where error.code == .notFound || error.code == .invalid || error.code == .conflict {
            // What a request named that is not there, not valid, or taken: the asker's mistake, never a 500 (the raw
            // HTTP fuzzer found revoking a token that does not exist answered 500).
            let status: HTTPResponse.Status = error.code == .notFound ? .notFound : error.code == .conflict ? .conflict : .badRequest
            return try await page(request, context) { words in
                let message = error.message(words)
                return HTTPError(status, message: message.prefix(1).uppercased() + message.dropFirst() + ".")
            }
        } catch let refusal as Refusal {
            return try await page(request, context) { words in refusal.error(words) }
        } catch let refused as ActionRefusal {
            return try await page(request, context) { words in Refusal(refused).error(words) }
        } catch let error as HTTPError {
            return try await page(request, context) { _ in error }
        }
    }

    /// The error `made` in the viewer's words, as a page; on the API and the grid's row requests it stays an error, in
    /// English, for Hummingbird's JSON. The viewer is read once, and only here.
    private func page(_ request: Request, _ context: Context, _ made: (Localizer) -> HTTPError) async throws -> Response {
        guard Self.isPage(request) else { throw made(.english) }
        let (context, words) = await viewer(request, context)
        let error = made(words)
        let chrome = Chrome(context, section: "", assets: assets.version)
        let title = Self.title(error.status, words)
        let html = try renderer.render("error", Model(chrome: chrome, title: title, status: error.status.code, message: error.body ?? title))
        var response = try HTMLPage(html: html, status: error.status).response(from: request, context: context)
        for field in error.headers { response.headers.append(field) }
        return response
    }

    /// The context the sessions' middleware would have made (this one runs before it), and its viewer's words. A
    /// session that cannot be read now leaves the page a guest's.
    private func viewer(_ request: Request, _ context: Context) async -> (context: Context, words: Localizer) {
        var context = context
        if context.viewer == nil && context.acceptLanguage == nil { try? await sessions.identify(request, &context) }
        return (context, translations.localizer(context.language, locale: context.locale))
    }

    /// Whether `request` gets its errors as a page: not the API's or the grid's row requests.
    static func isPage(_ request: Request) -> Bool {
        !request.uri.path.hasPrefix("/api/") && !request.uri.path.hasPrefix("/grid/")
    }

    /// The heading of an error's page, in the viewer's words.
    static func title(_ status: HTTPResponse.Status, _ words: Localizer) -> String {
        switch status.code {
        case 400: words("That request is not right")
        case 403: words("Not allowed")
        case 404: words("Not found")
        case 409: words("Already there")
        case 413: words("Too large")
        case 422: words("That could not be used")
        case 429: words("Too many requests")
        case 502: words("Another service did not answer as it should")
        case 503: words("Busy: try again shortly")
        default: status.code >= 500 ? words("Something went wrong") : status.reasonPhrase
        }
    }
}
