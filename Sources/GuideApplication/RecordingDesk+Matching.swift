import ChannelMatching
import GuideCore
import GuideThreads
import Recorders

/// The recorder's channel the one channel matcher (issue 44) suggests for a guide channel: by the number both give
/// in the household's lineup, the name and a call sign; how sure, and why.
public struct RecorderSuggestion: Sendable, Equatable {
    public var channel: String
    public var confidence: Double
    public var why: String
}

extension RecordingDesk {
    /// The least confidence at which the recorder page chooses a suggestion for the admin (who saves it or not).
    public static let suggestAt = 0.5

    /// For each of `channels`, the recorder's channel the matcher finds at ``suggestAt`` or above; each of the
    /// recorder's channels is suggested once, for the guide channel it fits best (a lineup has each channel once).
    public static func suggestions(for channels: [Channel], among recorder: [RecorderChannel]) async throws -> [ChannelID: RecorderSuggestion] {
        guard !channels.isEmpty, !recorder.isEmpty else { return [:] }
        let matchable = recorder.map { MatchableChannel(id: $0.id, names: [$0.name], number: $0.number) }
        let queries = channels.map { ($0.id, $0.displayNames.first?.text ?? $0.name, $0.number) }
        // A lineup of thousands against a recorder's thousands is seconds of work: not on a request's thread.
        return try await BlockingWork.run("recorder-matching") {
            let matcher = ChannelMatcher(matchable)
            var best: [String: (channel: ChannelID, suggestion: RecorderSuggestion)] = [:]
            for (id, name, number) in queries {
                guard let top = matcher.suggestions(for: name, number: number, limit: 1).first, top.confidence >= suggestAt else { continue }
                let suggestion = RecorderSuggestion(channel: top.channel, confidence: top.confidence, why: top.why.joined(separator: "; "))
                // The first in the guide's order keeps it when two fit as well.
                if let held = best[top.channel], held.suggestion.confidence >= top.confidence { continue }
                best[top.channel] = (id, suggestion)
            }
            return Dictionary(best.values.map { ($0.channel, $0.suggestion) }, uniquingKeysWith: { first, _ in first })
        }
    }
}
