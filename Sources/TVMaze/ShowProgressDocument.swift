import Foundation
import GuideCore

/// A show's progress as the API and `tvguide progress --json` write it.
public struct ShowProgressDocument: Codable, Sendable {
    public struct EpisodeDocument: Codable, Sendable {
        public var id: Int
        public var season: Int?
        public var number: Int?
        public var name: String?
        public var airdate: String?
    }

    public var show: Int
    public var name: String
    public var aired: Int
    public var watched: Int
    public var specialsAired: Int
    public var specialsWatched: Int
    /// The next aired episode to watch; left out when up to date.
    public var next: EpisodeDocument?
    public var lastWatched: String?
    public var newSinceLastWatched: Int

    public init(_ progress: ShowProgress) {
        (show, name, aired, watched) = (progress.show.id, progress.show.name, progress.aired, progress.watched)
        (specialsAired, specialsWatched) = (progress.specialsAired, progress.specialsWatched)
        next = progress.next.map { EpisodeDocument(id: $0.id, season: $0.season, number: $0.number, name: $0.name, airdate: $0.airdate) }
        (lastWatched, newSinceLastWatched) = (progress.lastWatched.map(CivilTime.iso8601), progress.newSinceLastWatched)
    }
}
