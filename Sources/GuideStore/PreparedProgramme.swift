import GuideCore

/// What a store writes for one programme, worked out without a database: the row's values, the details blob and
/// the folded text for search. An import makes these on its reading thread while the writing thread inserts the
/// previous ones. It holds a handful of values rather than the programme itself, so handing it over and releasing
/// it on the writing thread costs a few reference counts, not one per field of the programme.
public struct PreparedProgramme: Sendable {
    package let channel: ChannelID
    /// Seconds since 1970.
    package let start: Int64
    /// The stop the listings gave, if any.
    package let knownStop: Int64?
    /// Until a repair derives it, an open-ended programme lasts its stated length, or an hour.
    package let provisionalStop: Int64
    package let title: String
    package let clumpIndex: String?
    /// The line of the input the programme started on, for the import report.
    package let line: Int?
    package let details: [UInt8]
    /// Every title (each language's), folded, one a line: what title searches look in.
    package let foldedTitle: String
    /// Folded sub-titles and descriptions.
    package let foldedBody: String
    /// ``BodyHash`` of ``foldedBody``, worked out here on the reading thread; 0 for none.
    package let bodyHash: Int64

    public init(_ programme: Programme, line: Int?) {
        channel = programme.channel
        start = programme.start.unixSeconds
        knownStop = programme.stop?.unixSeconds
        let length = programme.length.map { Bounded.clamped($0, to: Programme.lengthRange) }.flatMap { $0 > 0 ? $0 : nil } ?? 3600
        provisionalStop = knownStop ?? start + Int64(length)
        title = programme.title
        clumpIndex = programme.clumpIndex
        self.line = line
        details = DetailsCodec.encode(programme)
        // Every language's title (XMLTV `lang`), one a line: a search finds a programme by any of its titles.
        var titles = [title]
        for other in programme.titles.map(\.text) where !titles.contains(other) { titles.append(other) }
        foldedTitle = SearchText.fold(titles.joined(separator: "\n"))
        var body = programme.subTitles.map(\.text)
        body.append(contentsOf: programme.descriptions.map(\.text))
        foldedBody = SearchText.fold(body.joined(separator: "\n"))
        bodyHash = foldedBody.isEmpty ? 0 : BodyHash.of(foldedBody)
    }
}
