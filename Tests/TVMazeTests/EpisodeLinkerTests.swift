import Foundation
import GuideCore
import Testing
@testable import TVMaze

/// Issue 44, point 4: a followed show's airings found by its title's variants and linked to their episodes, on Under
/// the Dome's real episodes (TVmaze's answer, from the replay server): by the listing's number, else its sub-title
/// (close ones too), else the original air date of a new airing.
@Suite struct EpisodeLinkerTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func linker(alternates: [String] = []) async throws -> EpisodeLinker {
        let rig = try await TVMazeClientTests.Rig()
        let episodes = try await rig.client.episodes(ofShow: 1)
        #expect(episodes.count == 39)
        return EpisodeLinker(show: "Under the Dome", alternates: alternates, episodes: episodes)
    }

    static func airing(_ title: String, subtitle: String? = nil, numbering: String? = nil, at start: Date = SeriesTests.pilot,
                       isNew: Bool = false) -> Programme {
        var programme = Programme(channel: ChannelID("cbs.us"), start: start, titles: [LocalizedText(title)])
        if let subtitle { programme.subTitles = [LocalizedText(subtitle)] }
        if let numbering { programme.episodeNumbers = [EpisodeNumber(system: "xmltv_ns", value: numbering)] }
        programme.isNew = isNew
        return programme
    }

    @Test func titlesAsTheyVary() async throws {
        let linker = try await Self.linker(alternates: ["Die Kuppel", "Sous le dôme"])
        for title in ["Under the Dome", "UNDER THE DOME", "Under the Dome (2013)", "Under The Dome: The Fire", "Under the Dome - Manhunt",
                      "Kuppel", "Sous le Dome"] {
            #expect(linker.matches(title: title).isAiring, "\(title)")
        }
        for title in ["Dome", "Under the Dome Special Look", "Under the Sea", ""] {
            #expect(!linker.matches(title: title).isAiring, "\(title)")
        }
        #expect(EpisodeLinker.titleKey("Law & Order") == EpisodeLinker.titleKey("Law and Order"))
        #expect(EpisodeLinker.titleKey("The Office") == EpisodeLinker.titleKey("Office"))
        #expect(EpisodeLinker.titleKey("Ghosts (2021)") == "ghosts")
    }

    @Test func linkedByNumberSubtitleOrAirDate() async throws {
        let linker = try await Self.linker()
        func linked(_ programme: Programme) -> (String, EpisodeLinker.Evidence)? {
            linker.episode(of: programme, zone: Self.newYork).map { ("S\($0.episode.season ?? 0)E\($0.episode.number ?? 0)", $0.evidence) }
        }
        // The number wins over a sub-title that says otherwise.
        let numbered = linked(Self.airing("Under the Dome", subtitle: "Pilot", numbering: "1.2."))
        #expect(numbered?.0 == "S2E3" && numbered?.1 == .number)
        // A sub-title: the same, or close ("Man Hunt", "The Endless Thirst, Part 1"), or in the title.
        #expect(linked(Self.airing("Under the Dome", subtitle: "The Fire"))?.0 == "S1E2")
        #expect(linked(Self.airing("Under the Dome", subtitle: "Man Hunt"))?.0 == "S1E3")
        #expect(linked(Self.airing("Under the Dome", subtitle: "Thicker than Water."))?.0 == "S1E8")
        #expect(linked(Self.airing("Under the Dome: Curtains"))?.0 == "S1E13")
        #expect(linked(Self.airing("Under the Dome", subtitle: "Something Else Entirely")) == nil)
        // A new airing without number or sub-title: its day in the show's zone is the pilot's (02:00 UTC is 22:00 the
        // day before in New York); a repeat on that day says nothing.
        #expect(linked(Self.airing("Under the Dome", isNew: true))?.1 == .airdate)
        #expect(linked(Self.airing("Under the Dome", isNew: true))?.0 == "S1E1")
        #expect(linked(Self.airing("Under the Dome")) == nil)
        // Another show's listing with the same sub-title is not this show's.
        #expect(linked(Self.airing("Doctor Who", subtitle: "Pilot")) == nil)
    }

    /// TVmaze's akas (recorded for Under the Dome: Russian and Hungarian): each reader's listings are searched for
    /// the titles of the countries where their languages are spoken, and the show's own country's.
    @Test func otherTitlesInTheReadersLanguages() async throws {
        let rig = try await TVMazeClientTests.Rig()
        let akas = try await rig.client.akas(ofShow: 1)
        #expect(akas == [AlsoKnownAs(name: "Под куполом", country: "RU"), AlsoKnownAs(name: "A búra alatt", country: "HU")])
        #expect(AlsoKnownAs.titles(akas, readIn: ["hu"]) == ["A búra alatt"])
        #expect(AlsoKnownAs.titles(akas, readIn: ["en", "ru"]) == ["Под куполом"])
        #expect(AlsoKnownAs.titles(akas, readIn: ["en-HU"]) == ["A búra alatt"])
        #expect(AlsoKnownAs.titles(akas, readIn: ["de", "fr"]).isEmpty && AlsoKnownAs.titles(akas, readIn: []).isEmpty)
        #expect(AlsoKnownAs.titles([AlsoKnownAs(name: "Original", country: nil)], readIn: []) == ["Original"])
        let linker = EpisodeLinker(show: "Under the Dome", alternates: AlsoKnownAs.titles(akas, readIn: ["hu"]),
                                   episodes: try await rig.client.episodes(ofShow: 1))
        let hungarian = Self.airing("A búra alatt", subtitle: "Pilot")
        #expect(linker.episode(of: hungarian, zone: Self.newYork)?.episode.code == "S01E01")
        #expect(linker.searchTitles == ["under the dome", "bura alatt"])
        // A show with no akas recorded (TVmaze's 404) has none.
        #expect(try await rig.client.akas(ofShow: 999_999).isEmpty)
    }
}
