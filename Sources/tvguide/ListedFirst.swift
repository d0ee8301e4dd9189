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

    /// Says on standard error how many channels were left out and how to see them, so nothing is hidden silently.
    func noteLeftOut(all: Bool, what: String) {
        guard !all, !empty.isEmpty else { return }
        let count = empty.count == 1 ? "1 channel" : "\(empty.count) channels"
        Output.error("\(count) with \(what) left out; --all lists them too.")
    }
}
