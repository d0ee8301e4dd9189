import GuideCore

/// The XMLTV elements the reader understands; anything else is skipped with its children.
enum ElementName: UInt8, Sendable {
    case tv, channel, programme
    case displayName, icon, url, lcn
    case title, subTitle, desc, credits, date, category, keyword, language, origLanguage, length, country
    case episodeNum, video, present, colour, aspect, quality, audio, stereo, previouslyShown, premiere
    case lastChance, new, subtitles, rating, starRating, value, image
    case director, actor, writer, adapter, producer, composer, editor, presenter, commentator, guest
    case other

    /// FNV-1a over the name's bytes: cheap enough to run on every tag, and used to check end tags match.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for index in range {
            hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01b3
        }
        return hash
    }

    static func hash(_ name: String) -> UInt64 {
        Array(name.utf8).withUnsafeBufferPointer { hash($0, 0..<$0.count) }
    }

    /// The element for a name hash: an open-addressed table, since a Dictionary's hashing showed up in profiles.
    @inline(__always)
    static func named(_ hash: UInt64) -> ElementName {
        var slot = Int(truncatingIfNeeded: hash) & (table.count - 1)
        while true {
            let entry = table[slot]
            if entry.hash == hash { return entry.name }
            if entry.hash == 0 { return .other }
            slot = (slot + 1) & (table.count - 1)
        }
    }

    private static let table: [(hash: UInt64, name: ElementName)] = {
        var table = [(hash: UInt64, name: ElementName)](repeating: (0, .other), count: 256)
        for (hash, name) in byHash {
            var slot = Int(truncatingIfNeeded: hash) & 255
            while table[slot].hash != 0 { slot = (slot + 1) & 255 }
            table[slot] = (hash, name)
        }
        return table
    }()

    static let byHash: [UInt64: ElementName] = {
        let names: [(String, ElementName)] = [
            ("tv", .tv), ("channel", .channel), ("programme", .programme), ("display-name", .displayName),
            ("icon", .icon), ("url", .url), ("lcn", .lcn), ("title", .title), ("sub-title", .subTitle),
            ("desc", .desc), ("credits", .credits), ("date", .date), ("category", .category),
            ("keyword", .keyword), ("language", .language), ("orig-language", .origLanguage),
            ("length", .length), ("country", .country), ("episode-num", .episodeNum), ("video", .video),
            ("present", .present), ("colour", .colour), ("aspect", .aspect), ("quality", .quality),
            ("audio", .audio), ("stereo", .stereo), ("previously-shown", .previouslyShown),
            ("premiere", .premiere), ("last-chance", .lastChance), ("new", .new), ("subtitles", .subtitles),
            ("rating", .rating), ("star-rating", .starRating), ("value", .value), ("image", .image),
            ("director", .director), ("actor", .actor), ("writer", .writer), ("adapter", .adapter),
            ("producer", .producer), ("composer", .composer), ("editor", .editor), ("presenter", .presenter),
            ("commentator", .commentator), ("guest", .guest),
        ]
        return Dictionary(uniqueKeysWithValues: names.map { (hash($0.0), $0.1) })
    }()

    /// The credit role this element names, if it is one.
    var creditRole: Credit.Role? {
        switch self {
        case .director: .director
        case .actor: .actor
        case .writer: .writer
        case .adapter: .adapter
        case .producer: .producer
        case .composer: .composer
        case .editor: .editor
        case .presenter: .presenter
        case .commentator: .commentator
        case .guest: .guest
        default: nil
        }
    }
}
