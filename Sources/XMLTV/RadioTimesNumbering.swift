import Foundation
import GuideCore

/// The Radio Times `sub_title` field: episode numbering such as `1/6, series 4`, `5861` or `series 8`, turned into
/// `xmltv_ns` as the old XMLTV grabber did, with any text that is not numbering left over for the episode title.
struct RadioTimesNumbering {
    var xmltvNS: XMLTVNSNumber?
    var leftover: String

    init(_ field: String) {
        xmltvNS = nil
        leftover = ""
        let text = field.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return }
        var episodePart = text
        var season: Int?
        if let range = text.range(of: #"(,\s*)?series\s+(\d+)"#, options: [.regularExpression, .caseInsensitive]) {
            season = Bounded.integer(String(text[range].filter(\.isNumber)), in: XMLTVNSNumber.numberRange)
            episodePart = String(text[..<range.lowerBound]) + String(text[range.upperBound...])
        }
        episodePart = episodePart.trimmingCharacters(in: .whitespaces)
        var episode: Int?
        var total: Int?
        // "E/T", "E", "E&F/T", "E and F/T", "1A/6", "1/2/6" (double episode: the first number wins).
        if let range = episodePart.range(of: #"^(\d+)[A-Za-z`]?((\s*(&|and)\s*\d+)|(/\d+(?=/)))?(/(\d+))?"#,
                                         options: .regularExpression) {
            let matched = String(episodePart[range])
            let numbers = matched.split(whereSeparator: { !$0.isNumber }).compactMap { Bounded.integer($0, in: XMLTVNSNumber.numberRange) }
            episode = numbers.first
            if matched.contains("/"), let last = numbers.last, numbers.count >= 2 { total = last }
            episodePart = String(episodePart[range.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        if let e = episode, let t = total, e > t { total = nil }
        if episode != nil || season != nil {
            xmltvNS = XMLTVNSNumber(season: season, episode: episode, episodeCount: total)
        }
        leftover = episodePart.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))
    }
}
