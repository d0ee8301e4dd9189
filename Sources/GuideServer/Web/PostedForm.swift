import GuideCore
import Hummingbird

/// A form a page posts, read one way: a type per form names the fields it reads and what each may hold (text up to
/// a length, a number in its `Bounded` range, one of a choice's cases, a ticked box), with ``FormFields``' readers.
/// A value outside its range is a 400 naming the field (``ErrorPages``) before the handler sees any of it; handlers
/// never read a form's fields by name (`scripts/check-routes`).
protocol PostedForm: Sendable {
    init(_ form: FormFields) throws(FieldError)
}

extension PostedForm {
    /// The form `request` posted (``SessionMiddleware`` has already checked its token).
    init(_ request: Request, _ context: some GuideContext) async throws {
        var request = request
        try self.init(FormFields(encoded: String(buffer: try await request.collectBody(upTo: context.maxUploadSize))))
    }
}

/// A form naming one stored thing by its number (a token, a profile, a feed): `id`, from 1.
struct IDForm: PostedForm {
    let id: Int64?

    init(_ form: FormFields) throws(FieldError) {
        id = try form.integer64("id", in: 1...Int64.max, called: "The id")
    }
}
