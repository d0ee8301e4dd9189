import Foundation
import GuideCore

/// Where the programmes of a plain XMLTV file lie: its header (everything before the first programme: the root and
/// the channels), then each channel's programmes, together and in start order, cut into days ("groups": a channel's
/// programmes whose starts are written with one date, the provider's own day). Each group is known by a digest of its bytes and of where the channel's
/// next programme starts, which is all its rows' repairs depend on (docs/repairs.md): a group with the digest it had
/// at the last import would be stored exactly as it is stored now, so a refresh reads only the groups that differ
/// (``RefreshPlan``).
///
/// A file is plain when nothing in it could make the bytes mean something the scan did not see: no comment or CDATA
/// after the header, every programme element whole with a channel and a start the scan can read, a channel's
/// programmes together and in order, and no channel after the first programme. Anything else is read whole, as before.
package struct ListingLayout: Sendable {
    struct Group: Sendable, Equatable {
        /// The date the group's starts are written with, `YYYYMMDD` as a number.
        var day: Int64
        /// The group's bytes in the file, from its first programme's `<` to its last one's `>`, and its first line.
        var bytes: Range<Int64>
        var line: Int
        /// The first start, and the latest end (a stop after its start, else the start and a second).
        var first: Int64
        var end: Int64
        /// Whether the first programme is zero-length (it then cuts nothing before it).
        var isFirstInstant: Bool
        var programmes: Int
        /// The bytes' XXH64 (hashed little-endian into ``digest``): a number, so that a group is copied without
        /// reference counting (its copies, as an array of eight bytes, were 4% of a refresh's survey).
        var content: UInt64
        /// The digest stored and compared: ``content`` with where the channel goes on after the group.
        var digest: UInt64 = 0

        /// Takes the next programme, which ends the group's bytes at `end` and runs until `finish`.
        mutating func take(through end: Int64, finish: Int64) {
            bytes = bytes.lowerBound..<end
            self.end = max(self.end, finish)
            programmes += 1
        }
    }

    struct Run: Sendable {
        /// The channel as its `channel` attribute says it (the scan refuses one with an entity).
        var channel: String
        var groups: [Group]
    }

    /// Bytes before the first programme.
    var headerEnd: Int64
    var runs: [Run]
    package var programmes: Int

    /// Names the stored form: v2's digests are XXH64 (v1's were SHA-256, and are read as nothing stored: the next
    /// refresh reads the whole file once).
    static let scheme = "layout/v2"
}

extension ListingLayout {
    /// What was stored of one channel: the guide channel its rows went to, and its groups' digests by day.
    struct Stored: Sendable, Equatable {
        var target: String
        var days: [Int64: UInt64]
    }

    /// The form kept with the feed's validators: a first line naming the scheme and what else the rows depend on
    /// (`context`: the import the rows came from, the source's time shift and zone), then a line per channel kept:
    /// its id, the guide channel it went to (`target`), and `day:digest` for each group, tab-separated.
    func text(context: String, target: (String) -> String?) -> String {
        var lines = ["\(Self.scheme) \(context)"]
        lines.reserveCapacity(runs.count + 1)
        for run in runs {
            guard let target = target(run.channel) else { continue }
            lines.append(run.channel + "\t" + target + "\t" + run.groups.map { "\($0.day):" + String($0.digest, radix: 16) }.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    /// What a stored form says of each channel, when its first line is `context` under this scheme; nil for any other
    /// (another scheme, other rows, a damaged value). Read by bytes: 10,000 channels' lines took 0.2 s split as
    /// strings, on the refresh's way from the download to its reading.
    static func groups(in stored: Substring, context: String) -> [String: Stored]? {
        var stored = stored
        let header = Array("\(scheme) \(context)".utf8)
        return stored.withUTF8 { text -> [String: Stored]? in
            var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
            guard let first = lines.popFirst(), first.elementsEqual(header) else { return nil }
            var groups: [String: Stored] = [:]
            groups.reserveCapacity(lines.count)
            for line in lines {
                let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, !fields[2].contains(UInt8(ascii: "\t")) else { return nil }
                var days: [Int64: UInt64] = [:]
                for pair in fields[2].split(separator: UInt8(ascii: " ")) {
                    guard let colon = pair.firstIndex(of: UInt8(ascii: ":")),
                          let day = Self.number(pair[..<colon], radix: 10, digits: 18),
                          let digest = Self.number(pair[(colon + 1)...], radix: 16, digits: 16) else { return nil }
                    days[Int64(day)] = digest
                }
                groups[String(decoding: fields[0], as: UTF8.self)] = Stored(target: String(decoding: fields[1], as: UTF8.self), days: days)
            }
            return groups
        }
    }

    /// A number of at most `digits` digits in `radix` (10 or 16, lower-case), which cannot overflow; nil for anything else.
    private static func number(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, radix: UInt64, digits: Int) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= digits else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a")) + 10
            default: return nil
            }
            value = value * radix + digit
        }
        return value
    }

    /// Settles each group's digest from its content and the start (and zero length) of the programme after it.
    mutating func settleDigests() {
        for r in runs.indices {
            for g in runs[r].groups.indices {
                let next = runs[r].groups.indices.contains(g + 1) ? runs[r].groups[g + 1] : nil
                let after = next.map { (first: $0.first, isFirstInstant: $0.isFirstInstant) }
                runs[r].groups[g].digest = Self.digest(of: runs[r].groups[g], next: after)
            }
        }
    }

    /// A group's digest: its content, and where its channel goes on after it (the next group's first start and
    /// whether that programme is zero-length; none after a run's last group).
    static func digest(of group: Group, next: (first: Int64, isFirstInstant: Bool)?) -> UInt64 {
        var hasher = XXH64()
        withUnsafeBytes(of: group.content.littleEndian) { hasher.update($0) }
        withUnsafeBytes(of: (next?.first ?? Int64.min).littleEndian) { hasher.update($0) }
        withUnsafeBytes(of: UInt8(next?.isFirstInstant == true ? 1 : 0)) { hasher.update($0) }
        return hasher.finalize()
    }
}
