import Foundation
import GuideCore

// TVmaze's answers (TVMazeWire.swift) as GuideCore's series values: the one place that reads `_embedded` and
// `_links`. An empty string is "not known", as null is.

extension Show {
    init(_ show: TVMazeShow) {
        self.init(id: show.id, name: show.name)
        url = show.url.nonEmpty
        type = show.type.nonEmpty
        language = show.language.nonEmpty
        genres = show.genres ?? []
        status = show.status.nonEmpty
        runtime = show.runtime ?? show.averageRuntime
        premiered = show.premiered.flatMap(CivilDate.init)
        ended = show.ended.flatMap(CivilDate.init)
        officialSite = show.officialSite.nonEmpty
        if let days = show.schedule?.days, !days.isEmpty, let time = show.schedule?.time.nonEmpty {
            airs = WeeklyAiring(days: days, time: time)
        }
        rating = show.rating?.average
        channel = ShowChannel(show)
        image = show.image?.preferred.nonEmpty
        summary = show.summary.nonEmpty
        updated = show.updated
        previousEpisodeID = show._links?.previousepisode?.id
        nextEpisodeID = show._links?.nextepisode?.id
        let reference = self.reference
        episodes = (show._embedded?.episodes ?? []).map { Episode($0, of: reference) }
        seasons = (show._embedded?.seasons ?? []).map(Season.init)
        cast = (show._embedded?.cast ?? []).map(Role.init)
        crew = (show._embedded?.crew ?? []).map(Role.init)
    }
}

extension ShowChannel {
    /// Its network, else its web channel.
    init?(_ show: TVMazeShow) {
        guard let outlet = show.network ?? show.webChannel else { return nil }
        self.init(id: outlet.id, name: outlet.name, isWebChannel: show.network == nil, country: outlet.country?.name.nonEmpty,
                  zone: outlet.country?.timezone.nonEmpty)
    }
}

extension Season {
    init(_ season: TVMazeSeason) {
        self.init(id: season.id, number: season.number, name: season.name.nonEmpty, episodeCount: season.episodeOrder,
                  premiered: season.premiereDate.flatMap(CivilDate.init), ended: season.endDate.flatMap(CivilDate.init))
    }
}

extension Episode {
    /// `show`: the show it was asked about, when TVmaze does not name it in the answer.
    init(_ episode: TVMazeEpisode, of show: ShowReference? = nil) {
        self.init(id: episode.id)
        url = episode.url.nonEmpty
        name = episode.name.nonEmpty
        season = episode.season.flatMap { Episode.numberRange.contains($0) ? $0 : nil }
        number = episode.number.flatMap { Episode.numberRange.contains($0) ? $0 : nil }
        type = episode.type.nonEmpty
        airdate = episode.airdate.nonEmpty
        airtime = episode.airtime.nonEmpty
        airstamp = episode.airstamp.nonEmpty
        runtime = episode.runtime
        rating = episode.rating?.average
        image = episode.image?.preferred.nonEmpty
        summary = episode.summary.nonEmpty
        // Embedded (embed=show), inline (schedules), or only linked (a guest credit's episode).
        self.show = (episode._embedded?.show ?? episode.show).map { Show($0).reference }
            ?? show
            ?? episode._links?.show.map { ShowReference(id: $0.id, name: $0.name.nonEmpty) }
        guests = (episode._embedded?.guestcast ?? []).map(Role.init)
        crew = (episode._embedded?.guestcrew ?? []).map(Role.init)
    }
}

extension Person {
    init(_ person: TVMazePerson) {
        self.init(id: person.id, name: person.name)
        url = person.url.nonEmpty
        country = person.country?.name.nonEmpty
        birthday = person.birthday.flatMap(CivilDate.init)
        deathday = person.deathday.flatMap(CivilDate.init)
        gender = person.gender.nonEmpty
        image = person.image?.preferred.nonEmpty
        credits = (person._embedded?.castcredits ?? []).map(Role.init)
    }
}

extension PersonReference {
    init(_ person: TVMazePerson) {
        self.init(id: person.id, name: person.name, image: person.image?.preferred.nonEmpty)
    }
}

extension Role {
    /// A part in a show's (or an episode's guest) cast.
    init(_ member: TVMazeCastMember) {
        self.init(person: PersonReference(member.person), character: member.character?.name.nonEmpty, isVoice: member.voice ?? false)
    }

    /// A show's crew member.
    init(_ member: TVMazeCrewMember) {
        self.init(person: PersonReference(member.person), job: member.type.nonEmpty)
    }

    /// An episode's crew member.
    init(_ member: TVMazeGuestCrew) {
        self.init(person: PersonReference(member.person), job: member.guestCrewType.nonEmpty)
    }

    /// A person's part in a show.
    init(_ credit: TVMazeCastCredit) {
        let show = credit._embedded?.show.map { Show($0).reference }
            ?? credit._links?.show.map { ShowReference(id: $0.id, name: $0.name.nonEmpty) }
        self.init(show: show, character: credit._embedded?.character?.name.nonEmpty, isVoice: credit.voice ?? false)
    }

    /// A person's guest part in an episode.
    init(_ credit: TVMazeGuestCastCredit) {
        let episode = credit._embedded?.episode.map { Episode($0) }
        self.init(episode: episode.map { EpisodeReference(id: $0.id, code: $0.code, name: $0.name, show: $0.show) },
                  character: credit._embedded?.character?.name.nonEmpty)
    }
}

extension Optional<String> {
    /// Nil for "", as for null.
    fileprivate var nonEmpty: String? {
        switch self {
        case .some(let text) where !text.isEmpty: text
        default: nil
        }
    }
}
