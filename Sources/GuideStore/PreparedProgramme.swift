import Foundation
import GuideCore
import Synchronization

/// What a store writes for one programme, worked out without a database: the row's values, the details blob and
/// the folded text for search. An import makes these on its reading thread while the writing thread inserts the
/// previous ones. It is an object, so handing it over, copying it into a batch and releasing it on the writing side
/// cost one reference count, not one for each of its texts and byte strings: PostgreSQL's session copies each
/// programme three times (into the pending rows, the batch, the settling), and as a value with a count for each of
/// its texts those counts were a quarter of the session's CPU at 1.75 M programmes.
public final class PreparedProgramme: Sendable {
    package let channel: ChannelID
    /// Seconds since 1970.
    package let start: Int64
    /// The stop the listings gave, if any.
    package let knownStop: Int64?
    /// Until a repair derives it, an open-ended programme lasts its stated length, or an hour.
    package let provisionalStop: Int64
    /// That length, in seconds.
    private let openLength: Int64
    package let title: String
    package let clumpIndex: String?
    /// The line of the input the programme started on, for the import report.
    package let line: Int?
    /// The details (``DetailsCodec``): without what its body keeps when the programme has one.
    package let details: [UInt8]
    /// Every title (each language's), folded, one a line: what title searches look in.
    package let foldedTitle: String
    /// Which folding of a title ``foldedTitle`` is (``TextFolding/title(_:)``): the programmes that share one share
    /// it, and no two foldings in the process have the same. A store knows a title's id by it without reading the
    /// folded text, which the reading thread keeps and hands to programme after programme.
    package let titleSerial: Int
    /// Folded sub-titles and descriptions.
    package let foldedBody: String
    /// What the body keeps of the programme (``DetailsCodec/shared(_:)``: its descriptions, credits and the rest an
    /// episode's airings share), once for all the programmes that share it; empty when the programme has no body (its
    /// details hold everything then).
    package let bodyTexts: [UInt8]
    /// What the body is found by: the XXH64 of ``bodyTexts`` seeded with that of ``foldedBody``, worked out here on
    /// the reading thread; 0 for no body.
    package let bodyHash: Int64

    public convenience init(_ programme: Programme, line: Int?) {
        var folding = TextFolding()
        self.init(programme, line: line, folding: &folding)
    }

    /// Folds the programme's texts through `folding`, which remembers the texts met before.
    package init(_ programme: Programme, line: Int?, folding: inout TextFolding) {
        channel = programme.channel
        start = programme.start.unixSeconds
        knownStop = programme.stop?.unixSeconds
        openLength = Int64(programme.length.map { Bounded.clamped($0, to: Programme.lengthRange) }
            .flatMap { $0 > 0 ? $0 : nil } ?? 3600)
        provisionalStop = knownStop ?? start + openLength
        title = programme.title
        clumpIndex = programme.clumpIndex
        self.line = line
        // Every language's title (XMLTV `lang`), one a line: a search finds a programme by any of its titles. Most
        // programmes have one title and one text at most, taken as they are: gathering them in arrays and joining
        // those cost the reading thread five allocations and a copy of the description a programme.
        let titles = programme.titles
        if titles.count <= 1 {
            (foldedTitle, titleSerial) = folding.title(title)
        } else {
            var all = [title]
            for other in titles.map(\.text) where !all.contains(other) { all.append(other) }
            (foldedTitle, titleSerial) = folding.title(all.joined(separator: "\n"))
        }
        let subTitles = programme.subTitles, descriptions = programme.descriptions
        let foldedHash: Int64
        switch (subTitles.count, descriptions.count) {
        case (0, 0): (foldedBody, foldedHash) = ("", 0)
        case (0, 1): (foldedBody, foldedHash) = folding.body(descriptions[0].text)
        case (1, 0): (foldedBody, foldedHash) = folding.body(subTitles[0].text)
        default:
            (foldedBody, foldedHash) = folding.body((subTitles + descriptions).map(\.text).joined(separator: "\n"))
        }
        let hasBody = !foldedBody.isEmpty
        details = DetailsCodec.encode(programme, layout: hasBody ? .sharedApart : .inline)
        bodyTexts = hasBody ? DetailsCodec.shared(programme) : []
        bodyHash = hasBody ? Self.bodyKey(folded: foldedHash, texts: bodyTexts) : 0
    }

    /// A programme on `channel` from `start` to `stop` whose content is `earlier`'s (XMLTV's reader found both under
    /// one key): its channel, times and line are its own, the rest is `earlier`'s, shared.
    package init(channel: ChannelID, start: Date, stop: Date?, line: Int?, sameAs earlier: PreparedProgramme) {
        self.channel = channel
        self.start = start.unixSeconds
        knownStop = stop?.unixSeconds
        openLength = earlier.openLength
        provisionalStop = knownStop ?? self.start + openLength
        self.line = line
        (title, clumpIndex, details, foldedTitle, titleSerial) = (earlier.title, earlier.clumpIndex, earlier.details,
                                                                  earlier.foldedTitle, earlier.titleSerial)
        (foldedBody, bodyTexts, bodyHash) = (earlier.foldedBody, earlier.bodyTexts, earlier.bodyHash)
    }

    /// A body's key: its folded text's hash and the bytes it keeps; never 0, which stands for none.
    static func bodyKey(folded: Int64, texts: [UInt8]) -> Int64 {
        var hasher = XXH64(seed: UInt64(bitPattern: folded))
        texts.withUnsafeBytes { hasher.update($0) }
        let key = Int64(bitPattern: hasher.finalize())
        return key == 0 ? 1 : key
    }
}

/// The folded forms of the titles and bodies an import has met, by their text as read: a guide repeats them all week
/// (of the real guides' programmes, 30-43% have a title and 38-70% a description not met before), and folding one
/// (Unicode decomposition, case, marks) and hashing a body cost the reading thread more than looking it up. At most
/// ``titleLimit`` titles and ``bodyLimit`` bodies are kept, their folded forms within ``titleBytes`` and ``bodyBytes``;
/// then they are forgotten and met again.
///
/// Each is remembered by the XXH64 of its text as read, not the text itself: what is kept is then its folded form
/// alone (about 300 bytes a description rather than 560), so that a large guide's texts fit. The 1.75 M guide has
/// 63,000 descriptions (at 20,000 two thirds of a changed day's were folded again) and 48,000 titles (at 20,000 the
/// titles were forgotten and folded again all through its import, 3% of the reading thread). Two texts whose bytes
/// share a 64-bit hash, about two chances in 10^10 among 80,000, would search as the first.
package struct TextFolding {
    package static let titleLimit = 80_000
    package static let titleBytes = 8 << 20
    package static let bodyLimit = 80_000
    package static let bodyBytes = 32 << 20
    private var titles = ForgetfulMap<(folded: String, serial: Int)>(limit: titleLimit, mostBytes: titleBytes)
    /// The last serial given to a folded title, by any folding in the process (``PreparedProgramme/titleSerial``).
    private static let lastTitleSerial = Atomic<Int>(0)
    private var bodies = ForgetfulMap<(folded: String, hash: Int64)>(limit: bodyLimit, mostBytes: bodyBytes)

    package init() {}

    /// How many titles and bodies it remembers, and the bytes of their folded forms.
    var remembered: (titles: Int, titleBytes: Int, bodies: Int, bodyBytes: Int) {
        (titles.count, titles.bytes, bodies.count, bodies.bytes)
    }

    /// The XXH64 of `text`'s UTF-8 bytes.
    static func hash(_ text: String) -> Int64 {
        var hasher = XXH64()
        if text.utf8.withContiguousStorageIfAvailable({ hasher.update(UnsafeRawBufferPointer($0)) }) == nil {
            var copy = text
            copy.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        }
        return Int64(bitPattern: hasher.finalize())
    }

    /// `text` folded for search, and the serial of this folding: the same as long as it is remembered, and another
    /// once it was forgotten and folded again.
    package mutating func title(_ text: String) -> (folded: String, serial: Int) {
        let key = Self.hash(text)
        if let known = titles[key] { return known }
        let folded = SearchText.fold(text)
        let known = (folded, Self.lastTitleSerial.add(1, ordering: .relaxed).newValue)
        titles.remember(known, bytes: folded.utf8.count, for: key)
        return known
    }

    /// `text` folded for search, and the XXH64 of its bytes (0 for none), which seeds its body's key
    /// (``PreparedProgramme/bodyHash``).
    package mutating func body(_ text: String) -> (folded: String, hash: Int64) {
        guard !text.isEmpty else { return ("", 0) }
        let key = Self.hash(text)
        if let known = bodies[key] { return known }
        let folded = SearchText.fold(text)
        let known = (folded, folded.isEmpty ? 0 : Self.hash(folded))
        bodies.remember(known, bytes: folded.utf8.count, for: key)
        return known
    }
}

/// Values by a 64-bit hash, at most `limit` of them and `mostBytes` of what they hold: past either, all are forgotten
/// at once. A value alone larger than `mostBytes` is not kept. Folded texts by the hash of the text read
/// (``TextFolding``), prepared programmes by their content's key (GuideIngest's `PreparedContents`).
package struct ForgetfulMap<Value> {
    let limit: Int
    let mostBytes: Int
    private var values: [Int64: Value] = [:]
    /// The bytes of the values held.
    private(set) var bytes = 0

    package init(limit: Int, mostBytes: Int) {
        (self.limit, self.mostBytes) = (limit, mostBytes)
    }

    var count: Int { values.count }

    package subscript(key: Int64) -> Value? { values[key] }

    package mutating func remember(_ value: Value, bytes count: Int, for key: Int64) {
        guard count <= mostBytes else { return }
        if values.count >= limit || bytes + count > mostBytes {
            values.removeAll(keepingCapacity: true)
            bytes = 0
        }
        values[key] = value
        bytes += count
    }
}

/// A string as a dictionary key compared and hashed by its UTF-8 bytes: folded titles are already in one normal form,
/// and a `String` key hashes non-ASCII text (a guide of Chinese titles) through Unicode normalization each time. The
/// bytes go through XXH64 and only its result through `Hasher`: a body's key is its whole text, and `Hasher` took
/// 8% of the reading thread's time in a body's lookup.
package struct UTF8Key: Hashable {
    package let text: String

    package init(_ text: String) {
        var text = text
        text.makeContiguousUTF8()
        self.text = text
    }

    package static func == (left: UTF8Key, right: UTF8Key) -> Bool {
        // Read in place (both are contiguous, see init): copying the strings to read them cost two reference counts a
        // comparison, on both of an import's threads.
        let same = left.text.utf8.withContiguousStorageIfAvailable { a in
            right.text.utf8.withContiguousStorageIfAvailable { b in
                guard a.count == b.count else { return false }
                guard let first = a.baseAddress, let second = b.baseAddress else { return true }   // Both empty.
                return memcmp(first, second, a.count) == 0
            }
        }
        return (same ?? nil) ?? left.text.utf8.elementsEqual(right.text.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(TextFolding.hash(text))
    }
}
