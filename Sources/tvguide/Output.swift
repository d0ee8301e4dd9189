import Foundation
import GuideCore

/// Writing to stdout and stderr, and the JSON and time formats every subcommand shares.
enum Output {
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `18:30` in the viewer's zone.
    static func clock(_ date: Date, _ zone: TimeZone = .current) -> String {
        let seconds = date.unixSeconds + Int64(zone.secondsFromGMT(for: date))
        let c = CivilTime.components(seconds)
        return String(format: "%02d:%02d", c.hour, c.minute)
    }

    /// `Sat 21 Nov` in the viewer's zone.
    static func day(_ date: Date, _ zone: TimeZone = .current) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = zone
        formatter.dateFormat = "EEE d MMM yyyy"
        return formatter.string(from: date)
    }

    /// A programme in one line: `18:30-19:00  Title: Sub-title (S2 E5)`.
    static func summary(_ stored: StoredProgramme) -> String {
        let programme = stored.programme
        var text = "\(clock(programme.start))-\(clock(stored.end))  \(programme.title)"
        if let subTitle = programme.subTitle { text += ": \(subTitle)" }
        if let label = programme.numbering?.label, !label.isEmpty { text += " (\(label))" }
        return text
    }
}
