import Synchronization

/// The handful of genres a guide colours programmes by, read from the free-text categories feeds carry
/// ("News-Current Affairs", "Kids-Family", "Spielfilm", "sports stuff") by keywords in English, German, French,
/// Spanish, Portuguese, Italian and Dutch. The first category that names a genre decides.
public enum Genre: String, CaseIterable, Sendable {
    case news, sport, film, children, drama, documentary, entertainment, music, other

    /// What the legend calls it, in English.
    public var label: String { label(.english) }

    /// What the legend calls it, in the viewer's words.
    public func label(_ words: Localizer) -> String {
        switch self {
        case .news: words("News")
        case .sport: words("Sport")
        case .film: words("Film")
        case .children: words("Children")
        case .drama: words("Drama & series")
        case .documentary: words("Documentary & learning")
        case .entertainment: words("Entertainment")
        case .music: words("Music & arts")
        case .other: words("Other")
        }
    }

    /// The genre of a programme with these categories, in the order the feed gave them.
    public init(categories: [String]) {
        for category in categories {
            if let genre = Self.genre(of: category) {
                self = genre
                return
            }
        }
        self = .other
    }

    /// Keywords matched against the start of each word of a category, lowercased; earlier genres win, so
    /// "Kids-Family Animation" is children's and "Sports News" is sport.
    private static let keywords: [(Genre, [String])] = [
        (.children, ["kid", "child", "cartoon", "anim", "kinder", "jeunesse", "enfant", "infantil", "niñ", "crianç",
                     "bambin", "jeugd", "family", "famil"]),
        (.sport, ["sport", "football", "soccer", "futbol", "fútbol", "futebol", "calcio", "tennis", "golf", "racing",
                  "motor", "cricket", "rugby", "basket", "hockey", "boxing", "wrestling", "fußball"]),
        (.news, ["news", "newscast", "current affairs", "nachricht", "journal", "actualit", "noticia", "notícia",
                 "telegiornale", "nieuws", "weather", "wetter", "politi", "business"]),
        (.film, ["film", "movie", "cinema", "cine", "spielfilm", "película", "pelicula", "thriller", "horror",
                 "western", "action", "adventure", "abenteuer", "sci-fi", "science fiction", "fantasy", "krimi"]),
        (.documentary, ["document", "dokument", "factual", "educat", "learning", "wissen", "science", "nature",
                        "natur", "history", "geschichte", "histoire", "histor", "travel", "reise", "wildlife"]),
        (.music, ["music", "musik", "musique", "música", "musica", "concert", "konzert", "arts", "culture", "kultur",
                  "opera", "oper"]),
        (.drama, ["drama", "series", "serie", "soap", "telenovela", "sitcom", "crime"]),
        (.entertainment, ["entertain", "unterhaltung", "divertissement", "entreten", "intratten", "comedy", "komödie",
                          "comédie", "variety", "game", "quiz", "show", "reality", "talk", "lifestyle", "cook",
                          "food", "magazin", "special"]),
    ]

    /// The genre of each category read lately: a guide's few hundred categories repeat on every programme, and reading
    /// one (lowercased, split into words, 130 stems tried) was a fifth of the grid's time at 10,000 channels.
    private static let read = Mutex<[String: Genre?]>([:])
    /// The most categories kept; past it they are read afresh.
    static let mostKept = 4096

    static func genre(of category: String) -> Genre? {
        if let known = read.withLock({ $0[category] }) { return known }
        let genre = reading(category)
        read.withLock { read in
            if read.count >= mostKept { read.removeAll(keepingCapacity: true) }
            read[category] = .some(genre)
        }
        return genre
    }

    private static func reading(_ category: String) -> Genre? {
        let folded = category.lowercased()
        let words = folded.split(whereSeparator: { !$0.isLetter })
        for (genre, stems) in keywords {
            for stem in stems {
                if stem.contains(" ") {
                    if folded.contains(stem) { return genre }
                } else if words.contains(where: { $0.hasPrefix(stem) }) {
                    return genre
                }
            }
        }
        return nil
    }
}

extension Programme {
    /// The genre the guide colours it by.
    public var genre: Genre { Genre(categories: categories.map(\.text)) }
}
