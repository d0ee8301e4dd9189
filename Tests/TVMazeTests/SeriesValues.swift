import GuideCore

// Shows and episodes as the store keeps them, written briefly for tests.

extension Show {
    static func kept(id: Int, name: String, status: String? = nil, channel: String? = nil, web: Bool = false, zone: String? = nil,
                     url: String? = nil, updated: Int? = nil, episodes: [Episode] = []) -> Show {
        var show = Show(id: id, name: name)
        show.status = status
        show.channel = channel.map { ShowChannel(id: nil, name: $0, isWebChannel: web, zone: zone) }
        show.url = url
        show.updated = updated
        show.episodes = episodes
        return show
    }
}

extension Episode {
    static func kept(id: Int, season: Int? = nil, number: Int? = nil, name: String? = nil, airdate: String? = nil,
                     airtime: String? = nil, airstamp: String? = nil, runtime: Int? = nil, url: String? = nil) -> Episode {
        var episode = Episode(id: id)
        (episode.season, episode.number, episode.name) = (season, number, name)
        (episode.airdate, episode.airtime, episode.airstamp) = (airdate, airtime, airstamp)
        (episode.runtime, episode.url) = (runtime, url)
        return episode
    }
}
