/// Artwork a listings service keeps for a programme without letting anyone keep its address: Schedules Direct's, whose
/// image addresses change and need the account's token (API-NOTES.md section 4). A programme names it by SD's series
/// id (the programme id's first 10 characters: `EP00688359`, `SH01966829`, `MV00015892`) in an icon whose source is
/// `schedulesdirect-artwork:<id>`, never an address on SD's hosts; pages and feeds show it through tvguide's own
/// `/artwork` address, which fetches it on its first view and keeps the bytes in tvguide's image cache.
public enum ProgrammeArtwork {
    static let scheme = "schedulesdirect-artwork:"

    /// The icon naming SD's artwork for `programID` (a 14-character programme id or its 10-character series id); nil
    /// for an id SD does not write.
    public static func icon(programID: String) -> Icon? {
        let series = String(programID.prefix(10))
        guard isSeriesID(series) else { return nil }
        return Icon(src: scheme + series)
    }

    /// The series id `icon` names, when it is SD's artwork.
    public static func seriesID(of icon: Icon) -> String? {
        guard icon.src.hasPrefix(scheme) else { return nil }
        let series = String(icon.src.dropFirst(scheme.count))
        return isSeriesID(series) ? series : nil
    }

    /// Two capital letters (EP, SH, MV, SP) and 8 digits, as SD writes a series id.
    public static func isSeriesID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10 && bytes[0..<2].allSatisfy { (65...90).contains($0) } && bytes[2...].allSatisfy { (48...57).contains($0) }
    }

    /// `icons` as a file or feed leaving the server writes them: SD's artwork at `address(series id)` (an absolute
    /// address on this server), or left out where there is none (a file written with no server to name).
    public static func addressed(_ icons: [Icon], at address: ((String) -> String)?) -> [Icon] {
        guard icons.contains(where: { $0.src.hasPrefix(scheme) }) else { return icons }
        return icons.compactMap { icon in
            guard icon.src.hasPrefix(scheme) else { return icon }
            guard let series = seriesID(of: icon), let address else { return nil }
            return Icon(src: address(series))
        }
    }
}
