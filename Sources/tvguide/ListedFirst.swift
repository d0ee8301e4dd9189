/// Rows of channels, those with listings in the asked window first: a newcomer's sample guide has thousands of
/// channels with nothing listed, and a screen of "now -, next -" before the first programme helps nobody.
struct ListedFirst<Row> {
    let listed: [Row]
    let empty: [Row]

    /// Splits `rows`, keeping the lineup's order within each part.
    init(_ rows: [Row], hasListings: (Row) -> Bool) {
        var listed: [Row] = []
        var empty: [Row] = []
        for row in rows {
            if hasListings(row) { listed.append(row) } else { empty.append(row) }
        }
        self.listed = listed
        self.empty = empty
    }

    /// The channels with listings, then (with `--all`) the rest.
    func rows(all: Bool) -> [Row] {
        all ? listed + empty : listed
    }

    /// What the left-out channels had nothing of.
    enum Window {
        case nowOrNext, hours
    }

    /// Says on standard error how many channels were left out and how to see them, so nothing is hidden silently.
    func noteLeftOut(all: Bool, window: Window) {
        guard !all, !empty.isEmpty else { return }
        let words = Output.words
        let note = switch window {
        case .nowOrNext: words.plural("{count} channel with nothing on now or next left out; --all lists them too.",
                                      "{count} channels with nothing on now or next left out; --all lists them too.", count: empty.count)
        case .hours: words.plural("{count} channel with nothing listed in these hours left out; --all lists them too.",
                                  "{count} channels with nothing listed in these hours left out; --all lists them too.", count: empty.count)
        }
        Output.error(note)
    }
}
