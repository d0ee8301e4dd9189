import Foundation
import GuideCore
import StoreTestSupport
import TestReceivers
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads an XMLTV file with Foundation's XMLParser (libxml2) and DateFormatter, sharing no code with tvguide's
/// reader, so the two can be compared.
final class IndependentReading: NSObject, XMLParserDelegate {
    struct Airing: Hashable {
        var channel: String
        var start: Date
        var stop: Date?
        var title: String
    }

    private(set) var airings: [Airing] = []
    private(set) var channelIDs: Set<String> = []
    private var current: Airing?
    private var text = ""
    private var inTitle = false
    private var hasTitle = false
    private let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMddHHmmss Z"
        return formatter
    }()

    /// The airings and channel ids of the file at `url` (gunzipped by gzip): seconds of parsing on a real file, so on a
    /// thread of its own.
    static func read(_ url: URL) async throws -> (airings: [Airing], channelIDs: Set<String>) {
        let data = url.pathExtension == "gz"
            ? Data(try await Program.run("/bin/gzip", arguments: ["-dc", url.path]).output) : try Data(contentsOf: url)
        return try await offThePool {
            let reading = try read(data)
            return (reading.airings, reading.channelIDs)
        }
    }

    private static func read(_ data: Data) throws -> IndependentReading {
        let reading = IndependentReading()
        // A stream makes libxml2 read in chunks; handed one big buffer it gives up on files over 10 MB.
        let parser = XMLParser(stream: InputStream(data: data))
        parser.delegate = reading
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return reading
    }

    /// Times as read: a guide's channels share their slots' times, and a programme's stop is the next one's start, so
    /// a real file has few distinct times (reading each with DateFormatter was a tenth of the Swift suite's CPU time).
    private var dates: [String: Date?] = [:]

    private func date(_ value: String?) -> Date? {
        guard let value else { return nil }
        if let known = dates[value] { return known }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let date = formatter.date(from: trimmed) ?? formatter.date(from: trimmed + " +0000")
        dates[value] = date
        return date
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "channel" where current == nil: channelIDs.insert(attributes["id"] ?? "")
        case "programme":
            if let channel = attributes["channel"], let start = date(attributes["start"]) {
                current = Airing(channel: channel, start: start, stop: date(attributes["stop"]), title: "")
                hasTitle = false
            }
        case "title" where current != nil && !hasTitle:
            inTitle = true
            text = ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inTitle { text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        if inTitle { text += String(decoding: block, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "title" && inTitle {
            current?.title = text.trimmingCharacters(in: .whitespacesAndNewlines)
            inTitle = false
            hasTitle = true
        } else if name == "programme", let airing = current {
            airings.append(airing)
            current = nil
        }
    }
}
