import Foundation

/// TVmaze's dates as pages and the terminal show them (summaries: ``HTMLText``).
public enum TVMazeText {
    /// The year of a `YYYY-MM-DD` date.
    public static func year(_ date: String?) -> String? {
        guard let date, date.count >= 4 else { return nil }
        return String(date.prefix(4))
    }
}
