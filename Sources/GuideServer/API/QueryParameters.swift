import Foundation
import GuideCore
import GuideWebFormats
import Hummingbird

/// Reading and checking a request's query parameters: anything malformed is a 400 whose message says what to send, in
/// the viewer's language on a page.
struct QueryParameters {
    /// Decoded as browsers encode forms: `+` is a space (Hummingbird's own parameters keep it as a plus).
    private let fields: FormFields

    init(request: Request) {
        fields = FormFields(encoded: request.uri.query ?? "")
    }

    /// The value, trimmed; nil when absent or blank.
    func string(_ name: String) -> String? {
        fields[name]
    }

    /// Every value given for `name`, in order, blanks left out (`?choose=a&choose=b`).
    func strings(_ name: String) -> [String] {
        fields.values.filter { $0.name == name }.map(\.value).filter { !$0.isEmpty }
    }

    /// Whether the address names `name` at all (`?group=` is there, blank).
    func isPresent(_ name: String) -> Bool {
        fields.values.contains { $0.name == name }
    }

    /// An ISO 8601 instant (`2024-01-01T18:00:00Z`, or with an offset).
    func instant(_ name: String) throws -> Date? {
        guard let text = string(name) else { return nil }
        guard let date = CivilTime.parseISO8601(text) else {
            throw Refusal(.badRequest, saying: "{name}={value} is not a time: use ISO 8601, like 2024-01-01T18:00:00Z", ["name": name, "value": text])
        }
        return date
    }

    /// A comma-separated list of channel ids, at most `limit` of them.
    func channels(limit: Int) throws -> [ChannelID]? {
        guard let text = string("channels") else { return nil }
        let ids = text.split(separator: ",").map { ChannelID(String($0)) }
        guard ids.count <= limit else {
            throw Refusal(.badRequest, saying: "channels names {count} channels; ask for at most {limit} at a time",
                          ["count": String(ids.count), "limit": String(limit)])
        }
        return ids
    }

    /// `genre`: one of the guide's genres (``Genre``), or nil when absent.
    func genre() throws -> Genre? {
        guard let text = string("genre") else { return nil }
        guard let genre = Genre(rawValue: text.lowercased()) else {
            throw Refusal(.badRequest, saying: "genre={value} is not a genre: use one of {genres}",
                          ["value": String(text.prefix(40)), "genres": Genre.allCases.map(\.rawValue).joined(separator: ", ")])
        }
        return genre
    }

    /// A whole number in `range`, or `fallback` when absent; a ``FieldError`` (a 400 in the asker's words) when it is
    /// not one.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(FieldError) -> Int {
        try integer(name, in: range) ?? fallback
    }

    /// A whole number in `range`, or nil when absent; a ``FieldError`` when it is not one.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(FieldError) -> Int? {
        try fields.integer(name, in: range)
    }
}
