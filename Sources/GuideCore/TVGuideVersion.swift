/// This program's version: `tvguide --version`, the User-Agent other services see (Schedules Direct requires one
/// with a version), and the package's (scripts/package adds the commit count: 0.1.N).
public enum TVGuideVersion {
    public static let number = "0.1"
}
