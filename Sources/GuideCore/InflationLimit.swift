/// How far compressed bytes from outside may inflate (a zip member, a gzip stream, an answer sent with
/// `Content-Encoding`): at most ``total`` bytes, and at most ``ratio`` times the compressed bytes read so far (after a
/// first ``slack``, so a small file's headers are not held against it). An inflater asks ``room(inflated:consumed:)``
/// before each piece and never makes more than one byte past it, so what a stranger's few bytes cost is bounded
/// while they are inflated, not after.
public struct InflationLimit: Sendable, Equatable {
    /// The most bytes out, in all.
    public var total: Int
    /// The most bytes out per byte in.
    public var ratio: Int

    /// What any inflation may make before the ratio counts: 1 MiB.
    public static let slack = 1 << 20
    /// Real data inflates 7 to 19 times (XMLTV guides 7-9, trackers' CSV and JSON exports 8-19, measured on the files
    /// in docs/security.md); a deflate bomb inflates about 1,000 times. 50 leaves real data more than twice its room.
    public static let realRatio = 50

    public init(total: Int, ratio: Int = realRatio) {
        (self.total, self.ratio) = (max(0, total), max(1, ratio))
    }

    /// How many more bytes may come out, `inflated` having come out of `consumed` bytes in.
    public func room(inflated: Int, consumed: Int) -> Int {
        let (byRatio, overflow) = max(0, consumed).multipliedReportingOverflow(by: ratio)
        let allowed = overflow ? total : min(total, byRatio > Int.max - Self.slack ? Int.max : byRatio + Self.slack)
        return max(0, allowed - max(0, inflated))
    }
}
