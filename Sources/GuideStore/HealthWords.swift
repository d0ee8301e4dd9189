import Foundation
import GuideCore

/// A source's state in the viewer's words, the same on the sources and health pages and in `tvguide sources` and `health`.
extension SourceStatus {
    /// How its last refresh went: "Mon 3 Jun 06:00: 2,615 programmes, 0.5 MB, 0 repairs, 1.2 s", a failure with its
    /// error, or one that never finished. `isRefreshing`: it is being refreshed now, so a refresh left unfinished is
    /// that one.
    public func lastRefresh(_ words: Localizer, clock: ViewerClock, isRefreshing: Bool = false) -> String {
        func at(_ date: Date) -> String { words.moment(date, clock) }
        var last = words("never refreshed")
        if let attempt = lastAttempt {
            switch lastOutcome {
            case .failed?: last = words("{when}: failed: {error}", ["when": at(attempt), "error": lastFailure?.worded(words) ?? words("unknown error")])
                + (failuresInRow > 1 ? "; " + words.plural("{count} failure in a row, retries spaced out", "{count} failures in a row, retries spaced out",
                                                           count: failuresInRow) : "")
                + " " + (lastSuccess.map { words("(last success {when})", ["when": at($0)]) } ?? words("(never succeeded)"))
            case .unchanged?: last = words("{when}: unchanged since the last download", ["when": at(attempt)])
            default: last = words("{when}: {programmes}, {size}, {repairs}, {seconds} s", [
                "when": at(attempt), "programmes": words.plural("{count} programme", "{count} programmes", count: lastProgrammes),
                "size": words.megabytes(lastBytes), "repairs": words.plural("{count} repair", "{count} repairs", count: lastRepairs),
                "seconds": words.decimal(lastDuration, digits: 1...1)])
            }
        }
        if let since = unfinishedSince, !isRefreshing {
            last = words("{when}: started and never finished (tvguide stopped during it, or another instance is refreshing it); counted as a failure, retried later. Before: {before}",
                         ["when": at(since), "before": last])
        }
        return last
    }

    /// Whether its last refresh failed or never finished (unless it is being refreshed now).
    public func hasFailed(isRefreshing: Bool = false) -> Bool {
        lastOutcome == .failed || (unfinishedSince != nil && !isRefreshing)
    }

    /// What it holds: "2,615 programmes (12 behind higher-priority sources)".
    public func holding(_ words: Localizer) -> String {
        words.plural("{count} programme", "{count} programmes", count: programmes)
            + (hidden > 0 ? " " + words.plural("({count} behind higher-priority sources)", "({count} behind higher-priority sources)", count: hidden) : "")
    }
}

extension SourceDefinition {
    /// When it is refreshed and how its times are read: "every 1.5 h, times shifted +60 min, times local to Europe/Paris".
    public func schedule(_ words: Localizer) -> String {
        var schedule = words("every {hours} h", ["hours": words.decimal(Double(refreshInterval) / 3600, digits: 0...2)])
        if timeShift != 0 {
            schedule += ", " + words("times shifted {minutes} min", ["minutes": (timeShift > 0 ? "+" : "") + words.number(timeShift / 60)])
        }
        if let localZone { schedule += ", " + words("times local to {zone}", ["zone": localZone]) }
        return schedule
    }
}

extension ChannelHealth {
    /// Its first three gaps ahead: "Mon 3 Jun 02:00–05:00, … and 2 more"; nil when it has none.
    public func gapsAhead(_ words: Localizer, clock: ViewerClock) -> String? {
        guard !gaps.isEmpty else { return nil }
        return gaps.prefix(3).map { words.moment($0.start, clock) + "–" + clock.time($0.end) }
            .joined(separator: ", ") + (gaps.count > 3 ? " " + words.plural("and {count} more", "and {count} more", count: gaps.count - 3) : "")
    }

    /// "2,615 channels with listings: 3 end within 24 h, 1 has gaps ahead, 0 have shifted-time warnings."
    public static func summary(_ health: [ChannelHealth], at instant: Date, _ words: Localizer) -> String {
        let soon = instant.addingTimeInterval(24 * 3600)
        return words.plural("{count} channel with listings: {ending}, {gaps}, {warnings}.", "{count} channels with listings: {ending}, {gaps}, {warnings}.",
                            count: health.count, [
            "ending": words.plural("{count} ends within 24 h", "{count} end within 24 h", count: health.filter { ($0.listingsEnd ?? .distantPast) < soon }.count),
            "gaps": words.plural("{count} has gaps ahead", "{count} have gaps ahead", count: health.filter { !$0.gaps.isEmpty }.count),
            "warnings": words.plural("{count} has shifted-time warnings", "{count} have shifted-time warnings",
                                     count: health.filter { !$0.warnings.isEmpty }.count)])
    }
}
