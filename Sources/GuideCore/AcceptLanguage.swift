/// A browser's `Accept-Language`, read once: its language tags in the order it prefers them (q-values honoured, the
/// first of equal weights first, `q=0` and `*` left out). The pages' language, the locale of dates and times, and the
/// languages listings are shown in all come from this one reading.
public struct AcceptLanguage: Hashable, Sendable {
    /// "de-AT", "de", "en": at most 32, each a plain tag of 35 characters or fewer.
    public let tags: [String]

    /// Reads `header`; a q-value that is not a number in 0...1 (`nan`, `1e308`, `-1`) is clamped, or 0 when unreadable.
    public init(_ header: String) {
        var weighted: [(tag: String, weight: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").prefix(32).enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty, tag.count <= 35,
                  tag.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else { continue }
            var weight = 1.0
            for parameter in pieces.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)).flatMap { $0.isNaN ? nil : min(max($0, 0), 1) } ?? 0
            }
            if weight > 0 { weighted.append((tag, weight, order)) }
        }
        tags = weighted.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.map(\.tag)
    }
}
