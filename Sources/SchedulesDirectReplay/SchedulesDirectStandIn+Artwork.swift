import Foundation
import TestReceivers

/// The stand-in's artwork: `metadata/programs/` answered with the recorded image lists, and `image/{uri}` redirected
/// (303) to another origin standing for Amazon S3, as SD does, which answers with an image. A test can set SD's daily
/// image limit (answered with the recorded 5002 past it) and URIs SD does not have (5000).
extension SchedulesDirectStandIn {
    /// SYNTHETIC: no SD image was recorded; the bytes served for every image are tvguide's own 192-pixel icon (a real
    /// PNG), Fixtures/artwork.png.
    static let artwork: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "artwork", withExtension: "png"), let data = try? Data(contentsOf: url) else { return [] }
        return [UInt8](data)
    }()

    /// Image downloads SD has answered.
    public var imagesServed: Int { state.withLockedValue { $0.imagesServed } }

    /// The requests that reached the image host (after SD's redirect).
    public var imageHostRequests: [Receiver.Request] { imageHost.requests }

    /// SD answers 5002 once `count` images have been served.
    public func limitImages(to count: Int) {
        state.withLockedValue { $0.imageLimit = count }
    }

    /// SD answers 5000 for `uri` (as `metadata/programs/` names it: `assets/...`).
    public func forgetImage(_ uri: String) {
        state.withLockedValue { _ = $0.missingImages.insert(uri) }
    }

    /// `metadata/programs/`: each series id answered with the recorded images of the recorded show, episode or film of
    /// that id, and any other (SYNTHETIC) with the recorded show's images under its own id. More than 500 ids is
    /// SD's 1009.
    func artworkIndex(_ request: Receiver.Request) -> Receiver.Answer {
        let ids = (try? JSONSerialization.jsonObject(with: request.body)) as? [String] ?? []
        guard ids.count <= 500 else { return Self.tooMany }
        let recorded = ["sagetv/metadata_programs_show.json", "sagetv/metadata_programs_episode.json", "sagetv/metadata_programs_movie.json"]
            .flatMap { (try? Self.json($0)) as? [[String: Any]] ?? [] }
        let byID = Dictionary(recorded.compactMap { entry in (entry["programID"] as? String).map { ($0, entry) } }, uniquingKeysWith: { first, _ in first })
        return Receiver.Answer(json: Self.text(ids.map { id -> [String: Any] in
            if let entry = byID[id] { return entry }
            var entry = recorded.first ?? [:]
            entry["programID"] = id
            return entry
        }))
    }

    /// `image/{uri}`: the recorded 5002 past the day's limit, a SYNTHETIC 5000 (SD's error shape) for a URI it does not
    /// have, else a 303 to the image host.
    func image(_ uri: String) -> Receiver.Answer {
        let answer = state.withLockedValue { state -> Int in
            if state.missingImages.contains(uri) { return 5000 }
            if let limit = state.imageLimit, state.imagesServed >= limit { return 5002 }
            state.imagesServed += 1
            return 0
        }
        switch answer {
        case 5000:
            return Receiver.Answer(json: #"{"response":"IMAGE_NOT_FOUND","code":5000,"serverID":"stand-in","message":"Could not find requested image. Post message to http://forums.schedulesdirect.org/viewforum.php?f=6 if you are having issues."}"#)
        case 5002:
            return recorded("issue-captures/image_error_5002_MAX_IMAGE_DOWNLOADS_2025-06-01.json")
        default:
            return Receiver.Answer(status: 303, json: "", headers: [("Location", imageHost.url("/schedulesdirect/" + uri))])
        }
    }

    static func queryToken(_ query: String) -> String? {
        query.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst("token=".count)) }
    }
}
