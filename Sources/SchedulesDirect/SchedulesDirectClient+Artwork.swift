import Foundation
import GuideCore
import GuideHTTP

/// Programme artwork, asked for one series at a time when a viewer first opens it (API-NOTES.md section 4, point 7):
/// `metadata/programs/` for the series' images, then the chosen image's bytes with the token. SD's addresses are used
/// once and never kept; the caller keeps the bytes.
extension SchedulesDirectClient {
    /// Image calls a UTC day, at most: well within SD's reported 5,000 a subscriber, so a busy guide's viewers never
    /// bring the account near the limit SD locks accounts past (jellyfin #17345, #18045).
    public static let imageCallsPerDay = 2_000
    /// The largest image read.
    public static let largestImage = 8 << 20

    /// The bytes of SD's artwork for `seriesID` (10 characters: `SH01966829`), or nil when SD has none to give (no
    /// image, one still being made (5001), one it said it does not have (5000)). Throws ``SDFailure`` on a code that
    /// stops image calls (5002, 5003, 5004, this client's own daily limit), which it keeps until 00:00 UTC.
    public func artwork(seriesID: String) async throws -> [UInt8]? {
        guard ProgrammeArtwork.isSeriesID(seriesID) else { return nil }
        let answer = try await call("POST", "metadata/programs/", body: try JSONEncoder().encode([seriesID]), scope: .images)
        let entries: [SDArtwork]
        do {
            entries = try JSONDecoder().decode([SDArtwork].self, from: answer)
        } catch {
            throw SDFailure(code: SDCode.invalidJSON, message: Sentence(saying: "artwork tvguide cannot read ({error})",
                                                                        ["error": "\(error)"]), status: 200)
        }
        // Keyed by the id each entry names; an entry's code stops image calls when SD says so (5003 arrives mid-batch).
        guard let entry = entries.first(where: { $0.programID == seriesID }) else { return nil }
        if let code = entry.code, code != 0 {
            let failure = SDFailure(code: SDCode(rawValue: code), said: entry.message, otherwise: Sentence(saying: "artwork SD would not give"), status: 200)
            switch failure.code.stop {
            case .element, .run:
                return nil  // About this series alone (1013 invalid id, 5001 queued): no artwork today.
            default:
                try await keep(failure, scope: .images)
                throw failure
            }
        }
        let missing = Set(try await states.load(account.fingerprint)?.missingImages ?? [])
        guard let image = Self.chosen(entry.images.filter { !missing.contains(Self.imageKey($0.uri)) }) else { return nil }
        do {
            return [UInt8](try await call("GET", "image/" + image.uri, scope: .images, accept: "image/*", largest: Self.largestImage,
                                              tokenInQuery: true))
        } catch let failure as SDFailure where failure.code == .imageNotFound {
            try await update { state in
                state.missingImages = Array(((state.missingImages ?? []) + [Self.imageKey(image.uri)]).suffix(SDState.mostMissingImages))
            }
            return nil
        }
    }

    /// The image a programme page shows: SD's own address form only (`assets/...`: an absolute address is not SD's
    /// to vouch for), landscape before portrait, title art before a bare picture, the primary image and the series'
    /// own first, 480 to 1,280 pixels wide and nearest 720.
    static func chosen(_ images: [SDArtwork.Image]) -> SDArtwork.Image? {
        let safe = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-".utf8))
        let usable = images.filter { image in
            image.uri.hasPrefix("assets/") && !image.uri.contains("..") && image.uri.utf8.count <= 200 && image.uri.utf8.allSatisfy(safe.contains)
        }
        let aspects = ["16x9": 0, "4x3": 1, "2x3": 2, "3x4": 3]
        // The series' title art first (Banner-L1 has the title on it), then its picture without one.
        let categories = ["Banner-L1": 0, "Iconic": 1, "Banner-L2": 2, "Banner-L3": 3, "Poster Art": 4, "Box Art": 5, "Banner": 6]
        func rank(_ image: SDArtwork.Image) -> (Int, Int, Int, Int, Int, Int) {
            let width = image.width ?? 0
            return (aspects[image.aspect ?? ""] ?? 4, (480...1280).contains(width) ? 0 : 1, categories[image.category ?? ""] ?? 7,
                    image.primary == "true" ? 0 : 1, image.tier == nil || image.tier == "Series" ? 0 : 1, abs(width - 720))
        }
        return usable.min { rank($0) < rank($1) }
    }

    /// Counts an image call against today's limit, or refuses it (and stops image calls until 00:00 UTC) past it.
    func countImageCall() async throws {
        let instant = now()
        let day = Self.utcDay(instant)
        let limit = imageCallLimit
        let allowed = try await update { state -> Bool in
            if state.imageCallsDay != day { (state.imageCalls, state.imageCallsDay) = (0, day) }
            guard (state.imageCalls ?? 0) < limit else { return false }
            state.imageCalls = (state.imageCalls ?? 0) + 1
            return true
        }
        guard allowed else {
            let failure = SDFailure(code: .maxImageDownloads, message: Sentence(
                saying: "tvguide's own limit of {count} image call a day is reached",
                plural: "tvguide's own limit of {count} image calls a day is reached", count: limit), status: nil)
            try await keep(failure, scope: .images)
            throw SDFailure(code: failure.code, message: failure.message, status: nil, until: Self.nextMidnight(after: instant))
        }
    }

    /// The image calls made today (UTC) and the day's limit.
    public func imageCallsToday() async throws -> (made: Int, limit: Int) {
        let state = try await states.load(account.fingerprint) ?? SDState()
        return (state.imageCallsDay == Self.utcDay(now()) ? state.imageCalls ?? 0 : 0, imageCallLimit)
    }

    /// A URI's name in the state: a hash, not the address itself.
    static func imageKey(_ uri: String) -> String {
        ImageCache.name(for: uri)
    }
}
