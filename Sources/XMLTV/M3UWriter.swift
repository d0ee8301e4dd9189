import GuideCore

/// Writes an M3U playlist as IPTV players read it (Kodi's IPTV Simple client, TiviMate, Jellyfin's M3U tuner): the
/// `#EXTM3U` line naming the guide (`x-tvg-url`), then for each channel an `#EXTINF:-1` line with `tvg-id` (the XMLTV
/// channel id), `tvg-chno`, `tvg-name`, `tvg-logo`, `group-title` and the `catchup*` attributes, its `#EXTVLCOPT:`
/// options, and the stream's address. What M3UReader reads back is what was written.
///
/// A value is written on one line and between double quotes, so line breaks become spaces and a double quote a single
/// one: a name or address in a source playlist cannot add lines or attributes to the playlist written.
public struct M3UWriter {
    /// One channel: its guide id, number, name and logo as the guide has them, and its entry from the source playlist.
    public struct Item {
        public var guideID: String
        public var number: String?
        public var name: String
        public var logo: String?
        public var entry: PlaylistEntry

        public init(guideID: String, number: String?, name: String, logo: String?, entry: PlaylistEntry) {
            (self.guideID, self.number, self.name, self.logo, self.entry) = (guideID, number, name, logo, entry)
        }
    }

    /// The attributes written from the guide's own knowledge, never copied from the source's other attributes.
    static let written: Set<String> = ["tvg-id", "tvg-chno", "tvg-name", "tvg-logo", "group-title", "catchup", "catchup-days",
                                       "catchup-source", "tvg-shift"]

    public init() {}

    /// The playlist for `items`, in order, naming `guide` as its XMLTV.
    public func playlist(_ items: [Item], guide: String?) -> String {
        var text = "#EXTM3U" + (guide.map { " x-tvg-url=\"\(Self.value($0))\"" } ?? "") + "\n"
        for item in items {
            let entry = item.entry
            var attributes: [(String, String)] = [("tvg-id", item.guideID)]
            if let number = item.number ?? entry.number { attributes.append(("tvg-chno", number)) }
            attributes.append(("tvg-name", item.name))
            if let logo = item.logo { attributes.append(("tvg-logo", logo)) }
            if !entry.groups.isEmpty { attributes.append(("group-title", entry.groups.joined(separator: ";"))) }
            if let shift = entry.shiftHours { attributes.append(("tvg-shift", Self.hours(shift))) }
            if let catchup = entry.catchup {
                attributes.append(("catchup", catchup.kind))
                if let days = catchup.days { attributes.append(("catchup-days", String(days))) }
                if let source = catchup.source { attributes.append(("catchup-source", source)) }
            }
            for (name, value) in entry.attributes.sorted(by: { $0.key < $1.key })
            where !Self.written.contains(name) && Self.isName(name) {
                attributes.append((name, value))
            }
            text += "#EXTINF:-1" + attributes.map { " \($0.0)=\"\(Self.value($0.1))\"" }.joined() + "," + Self.line(item.name) + "\n"
            for (name, value) in entry.playerOptions.sorted(by: { $0.key < $1.key }) where Self.isName(name) {
                text += "#EXTVLCOPT:\(name)=\(Self.line(value))\n"
            }
            text += Self.line(entry.stream) + "\n"
        }
        return text
    }

    /// On one line.
    static func line(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// On one line, between double quotes.
    static func value(_ text: String) -> String {
        line(text).replacingOccurrences(of: "\"", with: "'")
    }

    /// An attribute or option name: letters, digits and `-_.` (anything else is left out).
    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || [0x2D, 0x5F, 0x2E].contains(byte)
        }
    }

    private static func hours(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
