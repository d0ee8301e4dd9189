import GuideCore

/// A programme with the work a store needs done before it writes the row: the details blob and the folded text
/// for search. Building one needs no database, so an import makes them on the reading thread while the writing
/// thread inserts the previous ones.
public struct PreparedProgramme: Sendable {
    public let programme: Programme
    /// The line of the input the programme started on, for the import report.
    public let line: Int?
    let details: [UInt8]
    let foldedTitle: String
    /// Folded sub-titles and descriptions.
    let foldedBody: String

    public init(_ programme: Programme, line: Int?) {
        self.programme = programme
        self.line = line
        details = DetailsCodec.encode(programme)
        foldedTitle = SearchText.fold(programme.title)
        var body = programme.subTitles.map(\.text)
        body.append(contentsOf: programme.descriptions.map(\.text))
        foldedBody = SearchText.fold(body.joined(separator: "\n"))
    }
}
