import GuideCore
import GuideWebFormats
import Hummingbird

/// A form a page posts, read one way: a type per form names the fields it reads and what each may hold (text up to
/// a length, a number in its `Bounded` range, one of a choice's cases, a ticked box), with ``FormFields``' readers.
/// A value outside its range is a 400 naming the field (``ErrorPages``) before the handler sees any of it; handlers
/// never read a form's fields by name (`scripts/check-routes`).
protocol PostedForm: Sendable {
    init(_ form: FormFields) throws(FieldError)
}

extension PostedForm {
    /// The form `request` posted, as ``SessionMiddleware`` read it and checked its token: its fields are not read
    /// again. A form of files has no fields of this kind: a 400.
    init(_ request: Request, _ context: some GuideContext) async throws {
        guard case .fields(let fields) = context.posted else {
            throw Refusal(.badRequest, saying: "This form sends no files: send it from its page.")
        }
        try self.init(fields)
    }
}

/// A page's posted body, parsed once (``SessionMiddleware``): fields (`application/x-www-form-urlencoded`), or a form
/// of files (`multipart/form-data`).
enum PostedBody: Sendable {
    case fields(FormFields)
    case files(MultipartForm)

    /// A text field's value, whichever kind the form is.
    func text(_ name: String) -> String? {
        switch self {
        case .fields(let fields): fields.raw(name)
        case .files(let form): form.text(name)
        }
    }
}

/// A form naming one stored thing by its number (a token, a profile, a feed): `id`, from 1.
struct IDForm: PostedForm {
    let id: Int64?

    init(_ form: FormFields) throws(FieldError) {
        id = try form.integer64("id", in: 1...Int64.max, called: "The id")
    }
}
