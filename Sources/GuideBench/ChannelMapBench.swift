import ChannelMatching
import Foundation
import GuideCore
import GuideIngest
import XMLTV

/// The channel matcher on the channelmap development set (`../shared/data/channelmap`: a guide of 13,555 channels,
/// a playlist of 1,645 names with only a name and a country, and the channel each one is): top-1 accuracy, the
/// precision and share of what it would apply by itself (confidence at least ``appliedAt``), each kind of difference's
/// accuracy, and the time; then the time to match `entries` names against a guide of `channels` (the set's repeated).
func channelMapBench(folder: String, entries wanted: Int, channels wantedChannels: Int, appliedAt threshold: Double) throws {
    var reader = XMLTVReader()
    var channels: [MatchableChannel] = []
    let guide = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/guide.xml")))
    let take = { (item: XMLTVItem) in
        if case .channel(let channel) = item { channels.append(MatchableChannel(id: channel.id.rawValue, names: channel.displayNames.map(\.text))) }
    }
    try guide.withUnsafeBytes { try reader.feed($0, take) }
    try reader.finish(take)
    let playlist = try M3UReader.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/playlist.m3u")))).entries
    let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/truth.json"))) as? [String: String] ?? [:]
    var kinds: [String: [String]] = [:]
    for line in try String(contentsOfFile: folder + "/pairs.jsonl", encoding: .utf8).split(separator: "\n") {
        guard let pair = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let url = pair["stream_url"] as? String else { continue }
        let variants = (pair["variant_kinds"] as? [String]) ?? []
        kinds[url] = (variants.isEmpty ? ["none"] : variants) + ["match: " + ((pair["match_kind"] as? String) ?? "?")]
    }

    let built = DispatchTime.now().uptimeNanoseconds
    let matcher = ChannelMatcher(channels)
    let buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - built) / 1e9
    // TVGUIDE_BENCH_QUERY="NAME|COUNTRY": what the matcher suggests for one name, to read why.
    if let asked = ProcessInfo.processInfo.environment["TVGUIDE_BENCH_QUERY"] {
        let parts = asked.split(separator: "|").map(String.init)
        for found in matcher.suggestions(for: parts[0], country: parts.count > 1 ? parts[1] : nil, limit: 8) {
            print("\(found.channel)\t\(String(format: "%.3f", found.score))\t\(String(format: "%.3f", found.confidence))\t\(found.why)")
        }
        return
    }
    let started = DispatchTime.now().uptimeNanoseconds
    var results: [(url: String, right: Bool, confidence: Double)] = []
    // The set's "lenient" measure (baseline.py's): an id that differs only by a picture-quality feed (`X.de@HD` for
    // `X.de@SD`, `@LondonHD` for `@London`) carries the same schedule, so the same listings.
    var lenient: [Bool] = []
    var misses = ""
    for entry in playlist {
        let found = matcher.suggestions(for: entry.name, country: entry.groups.first, limit: 2)
        let best = found.first
        results.append((entry.stream, best?.channel == truth[entry.stream], best?.confidence ?? 0))
        lenient.append(best.map { qualityKey($0.channel) } == truth[entry.stream].map(qualityKey))
        if best?.channel != truth[entry.stream] || ProcessInfo.processInfo.environment["TVGUIDE_BENCH_ALL"] != nil {
            misses += "\(String(format: "%.3f", best?.confidence ?? 0))\t\(best?.channel == truth[entry.stream] ? "right" : "wrong")\t\(entry.groups.first ?? "")\t\(entry.name)\twant \(truth[entry.stream] ?? "?")\tgot \(best?.channel ?? "none") \(best?.why ?? [])\tthen \(found.dropFirst().first?.channel ?? "none")\t\(best?.score ?? 0)\t\(best?.margin ?? 0)\n"
        }
    }
    // TVGUIDE_BENCH_MISSES=FILE: each wrong answer (with TVGUIDE_BENCH_ALL, every answer), most confident first, to
    // read what the matcher misses.
    if let path = ProcessInfo.processInfo.environment["TVGUIDE_BENCH_MISSES"] {
        try misses.split(separator: "\n").sorted(by: >).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let right = results.filter(\.right).count
    let applied = results.filter { $0.confidence >= threshold }
    let appliedRight = applied.filter(\.right).count
    print("channelmap\ttop-1\t\(right)/\(results.count)\t\(String(format: "%.3f", Double(right) / Double(results.count)))")
    print("channelmap\tapplied at confidence >= \(threshold)\t\(applied.count)/\(results.count)\t\(String(format: "%.3f", Double(applied.count) / Double(results.count)))"
          + "\tprecision\t\(String(format: "%.4f", applied.isEmpty ? 0 : Double(appliedRight) / Double(applied.count)))")
    // The most that can be applied at 99% precision, and the confidence that does it; strict, then lenient.
    for (measure, right) in [("", results.map(\.right)), (" (lenient)", lenient)] {
        var good = 0, most = 0, at = 1.0
        for (count, index) in results.indices.sorted(by: { results[$0].confidence > results[$1].confidence }).enumerated() {
            good += right[index] ? 1 : 0
            if Double(good) / Double(count + 1) >= 0.99 { (most, at) = (count + 1, results[index].confidence) }
        }
        let share = String(format: "%.3f", Double(most) / Double(results.count))
        if !measure.isEmpty {
            let top = right.filter { $0 }.count
            print("channelmap\ttop-1\(measure)\t\(top)/\(results.count)\t\(String(format: "%.3f", Double(top) / Double(results.count)))")
        }
        print("channelmap\tmost applied at 99% precision\(measure)\t\(most)/\(results.count)\t\(share)\tconfidence >= \(String(format: "%.4f", at))")
    }
    var byKind: [String: (right: Int, of: Int)] = [:]
    for result in results {
        for kind in kinds[result.url] ?? ["?"] { byKind[kind, default: (0, 0)].right += result.right ? 1 : 0; byKind[kind, default: (0, 0)].of += 1 }
    }
    for (kind, count) in byKind.sorted(by: { $0.key < $1.key }) {
        print("channelmap\tkind\t\(kind)\t\(count.right)/\(count.of)\t\(String(format: "%.3f", Double(count.right) / Double(count.of)))")
    }
    print("channelmap\ttime\t\(channels.count) channels indexed in \(String(format: "%.2f", buildSeconds)) s; \(results.count) names matched in \(String(format: "%.2f", seconds)) s")

    // Scale: `wanted` names against `wantedChannels` channels (the guide's channels again, ids made distinct).
    var large: [MatchableChannel] = []
    large.reserveCapacity(wantedChannels)
    while large.count < wantedChannels {
        let copy = large.count / channels.count
        for channel in channels.prefix(wantedChannels - large.count) {
            large.append(MatchableChannel(id: copy == 0 ? channel.id : channel.id + "#\(copy)", names: channel.names))
        }
    }
    let scaleBuilt = DispatchTime.now().uptimeNanoseconds
    let big = ChannelMatcher(large)
    let scaleStarted = DispatchTime.now().uptimeNanoseconds
    var matched = 0
    for index in 0..<wanted {
        let entry = playlist[index % playlist.count]
        matched += big.suggestions(for: entry.name, country: entry.groups.first, limit: 5).isEmpty ? 0 : 1
    }
    let scaleSeconds = Double(DispatchTime.now().uptimeNanoseconds - scaleStarted) / 1e9
    print("channelmap\tscale\t\(wanted) names x \(large.count) channels\tindexed \(String(format: "%.2f", Double(scaleStarted - scaleBuilt) / 1e9)) s\tmatched \(String(format: "%.2f", scaleSeconds)) s\t\(matched) with a suggestion")
}

/// An id without a picture-quality suffix on its feed, as the set's `baseline.py` writes it: `X.de@` for `X.de@HD`.
private func qualityKey(_ id: String) -> String {
    guard let at = id.firstIndex(of: "@") else { return id + "@" }
    var feed = id[id.index(after: at)...]
    for suffix in ["UHD", "FHD", "HD", "SD", "4K"] where feed.hasSuffix(suffix) {
        feed = feed.dropLast(suffix.count)
        break
    }
    return String(id[...at] + feed)
}
