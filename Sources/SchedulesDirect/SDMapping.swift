import Foundation
import GuideCore

/// Schedules Direct's stations and programmes as tvguide's channels and programmes (API-NOTES.md section 7, after
/// the XMLTV project's tv_grab_zz_sdjson, with Jellyfin and Dispatcharr where they differ).
enum SDMapping {
    /// A station's channel id in the guide, as tv_grab_zz_sdjson writes it (so a guide moved from the grabber keeps its
    /// channels).
    static func channelID(_ station: String) -> ChannelID {
        ChannelID("I\(station).json.schedulesdirect.org")
    }

    /// The station as a channel: its name, call sign and number as display names (in MythTV's order), its logo.
    static func channel(_ station: SDLineupMap.Station?, id: String, entry: SDLineupMap.Entry?) -> Channel {
        var names: [LocalizedText] = []
        for text in [station?.name, station?.callsign, entry?.number] {
            if let text, !text.isEmpty, !names.contains(where: { $0.text == text }) { names.append(LocalizedText(text)) }
        }
        // Logos are plain addresses on SD's image host (no token); the guide's logo cache fetches them.
        let logo = station?.logo ?? station?.stationLogo?.first
        return Channel(id: channelID(id), displayNames: names,
                       icons: logo.map { [Icon(src: $0.URL, width: $0.width, height: $0.height)] } ?? [], number: entry?.number)
    }

    /// An airing of `program` on `station`, naming SD's artwork for it (``ProgrammeArtwork``) when `artwork` is chosen
    /// and SD has some; nil when SD's times cannot be read.
    static func programme(_ airing: SDAiring, _ program: SDProgram?, station: String, artwork: Bool = false) -> Programme? {
        guard let start = CivilTime.parseISO8601(airing.airDateTime), (1...(31 * 86_400)).contains(airing.duration) else { return nil }
        let title = program?.titles?.lazy.compactMap(\.title120).first { !$0.isEmpty } ?? program?.episodeTitle150 ?? "unknown"
        var programme = Programme(channel: channelID(station), start: start, stop: start.addingTimeInterval(TimeInterval(airing.duration)),
                                  titles: [LocalizedText(title)])
        guard let program else {
            programme.episodeNumbers = [EpisodeNumber(system: "dd_progid", value: airing.programID)]
            return programme
        }
        if let episode = program.episodeTitle150, !episode.isEmpty, episode != title { programme.subTitles = [LocalizedText(episode)] }
        // The longest description SD has.
        let descriptions = program.descriptions
        if let text = descriptions?.description1000?.first ?? descriptions?.description255?.first ?? descriptions?.description100?.first {
            programme.descriptions = [LocalizedText(text.description, language: text.descriptionLanguage)]
        }
        programme.credits = credits(program)
        programme.date = program.movie?.year
        var categories = program.genres ?? []
        if let kind = category(program), !categories.contains(where: { $0.lowercased() == kind }) { categories.append(kind) }
        programme.categories = categories.map { LocalizedText($0, language: "en") }
        programme.length = (program.duration ?? program.movie?.duration).flatMap { Programme.lengthRange.contains($0) ? $0 : nil }
        if let url = program.officialURL, url.hasPrefix("http") { programme.urls = [url] }
        if artwork, program.hasImageArtwork == true, let icon = ProgrammeArtwork.icon(programID: program.programID) { programme.icons = [icon] }
        programme.episodeNumbers = episodeNumbers(program, airing)
        if airing.videoProperties?.contains(where: { $0.lowercased().hasPrefix("hd") }) == true { programme.video = Video(quality: "HDTV") }
        let audio = Set((airing.audioProperties ?? []).map { $0.lowercased() })
        if audio.contains(where: { $0.hasPrefix("dd") }) {
            programme.audio = Audio(stereo: "dolby digital")
        } else if audio.contains("stereo") {
            programme.audio = Audio(stereo: "stereo")
        } else if audio.contains("mono") {
            programme.audio = Audio(stereo: "mono")
        }
        if audio.contains("cc") { programme.subtitles = [Subtitles(type: "teletext")] }
        programme.isNew = airing.new == true
        if airing.new != true { programme.previouslyShown = PreviouslyShown(start: program.originalAirDate.map { $0.replacingOccurrences(of: "-", with: "") }) }
        if let kind = airing.isPremiereOrFinale, kind.contains("Premiere") {
            programme.premiere = LocalizedText(kind)
        } else if airing.premiere == true {
            programme.premiere = LocalizedText("Premiere")
        }
        if let kind = airing.isPremiereOrFinale, kind.contains("Finale") { programme.lastChance = LocalizedText(kind) }
        programme.ratings = (program.contentRating ?? []).map { Rating(system: $0.body, value: $0.code) }
        if programme.ratings.isEmpty { programme.ratings = (airing.ratings ?? []).map { Rating(system: $0.body, value: $0.code) } }
        if let quality = program.movie?.qualityRating?.first {
            programme.starRatings = [Rating(system: quality.ratingsBody, value: quality.rating + (quality.maxRating.map { "/" + $0 } ?? ""))]
        }
        return programme
    }

    /// Cast and crew by role, in billing order: directors, actors (with their characters), writers, producers,
    /// presenters and guests; other crew left out.
    static func credits(_ program: SDProgram) -> [Credit] {
        let people = ((program.cast ?? []) + (program.crew ?? [])).sorted { ($0.billingOrder ?? "") < ($1.billingOrder ?? "") }
        return people.compactMap { person in
            let role = (person.role ?? "").lowercased()
            let kind: Credit.Role? = switch role {
            case "director": .director
            case "actor", "voice", "guest star": role == "guest star" ? .guest : .actor
            case "writer", "writer (story)", "screenwriter": .writer
            case "producer", "executive producer": .producer
            case "host", "anchor": .presenter
            case "guest", "contestant": .guest
            default: nil
            }
            return kind.map { Credit(role: $0, name: person.name, character: person.characterName) }
        }
    }

    /// The kind of programme as MythTV's category convention has it (after tv_grab_zz_sdjson).
    static func category(_ program: SDProgram) -> String? {
        switch program.entityType?.lowercased() {
        case "movie": "movie"
        case "episode": "series"
        case "sports": "sports"
        case nil: nil
        default: "tvshow"
        }
    }

    /// Gracenote's season and episode as `xmltv_ns` (zero-based, with totals and the airing's part), an `onscreen`
    /// S1E13, and SD's programme id (`dd_progid`).
    static func episodeNumbers(_ program: SDProgram, _ airing: SDAiring) -> [EpisodeNumber] {
        var numbers: [EpisodeNumber] = []
        let numbering = program.numbering
        let season = numbering?.season.flatMap { $0 > 0 ? $0 : nil }, episode = numbering?.episode.flatMap { $0 > 0 ? $0 : nil }
        if season != nil || episode != nil || airing.multipart != nil {
            func field(_ index: Int?, _ total: Int?) -> String {
                (index.map { String($0 - 1) } ?? "") + (total.flatMap { $0 > 0 ? "/\($0)" : nil } ?? "")
            }
            let part = airing.multipart.flatMap { $0.partNumber > 0 ? $0 : nil }
            numbers.append(EpisodeNumber(system: "xmltv_ns", value: field(season, numbering?.totalSeasons) + "."
                                         + field(episode, numbering?.totalEpisodes) + "." + field(part?.partNumber, part?.totalParts)))
        }
        if let season, let episode { numbers.append(EpisodeNumber(system: "onscreen", value: "S\(season)E\(episode)")) }
        numbers.append(EpisodeNumber(system: "dd_progid", value: program.programID))
        return numbers
    }
}
