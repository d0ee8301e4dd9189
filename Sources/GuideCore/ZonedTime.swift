import Foundation

/// Turns a local wall-clock time in a named zone into UTC, including the hour that happens twice when clocks go
/// back and the hour that never happens when they go forward.
public enum ZonedTime {
    /// Which of two instants to take when a local time happens twice.
    public enum Preference: Sendable {
        case earlier
        case later
    }

    /// UTC seconds for `localSeconds` (a local date and time counted as if it were UTC) in `zone`.
    /// A time in a spring-forward gap is read with the offset in force before the change, as broadcasters' feeds do.
    public static func utc(localSeconds: Int64, in zone: TimeZone, prefer preference: Preference = .earlier) -> Int64 {
        let before = offset(zone, localSeconds - 86_400)
        let after = offset(zone, localSeconds + 86_400)
        var candidates: [Int64] = []
        for offset in Set([before, after]).sorted(by: >) {
            let instant = localSeconds - Int64(offset)
            if self.offset(zone, instant) == offset { candidates.append(instant) }
        }
        candidates.sort()
        switch (candidates.count, preference) {
        case (0, _): return localSeconds - Int64(before)
        case (_, .earlier): return candidates[0]
        case (_, .later): return candidates[candidates.count - 1]
        }
    }

    static func offset(_ zone: TimeZone, _ seconds: Int64) -> Int {
        zone.secondsFromGMT(for: Date(unixSeconds: seconds))
    }
}
