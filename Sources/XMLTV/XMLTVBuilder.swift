import Foundation
import GuideCore

/// Turns the scanner's tags and text into channels and programmes, one element at a time.
struct XMLTVBuilder {
    /// How deep elements may nest: XMLTV needs five levels (tv, programme, credits, actor, image); deeper is hostile.
    static let maximumDepth = 64

    var issues = IssueLog()
    /// See ``XMLTVReader/localZone``.
    var localZone: TimeZone? {
        didSet { recentTime = XMLTVTimestamp.Recent() }
    }
    /// The last start or stop read: most starts are the stop before them.
    private var recentTime = XMLTVTimestamp.Recent()
    private(set) var hasSeenRoot = false
    private var hasClosedRoot = false

    struct Frame {
        var hash: UInt64
        var name: ElementName
    }

    var stack: [Frame] = []
    /// Depth inside an element we skip (unknown, `x-` or not wanted); 0 when not skipping.
    private var skipDepth = 0
    private var text: [UInt8] = []
    /// Counted as texts are read, recorded in ``issues`` by ``flushEntityIssues()``.
    var entityIssues = EntityIssues()

    private var channel: Channel?
    var programme: Programme?
    /// The programme handed on last: started over in place for the next (``Programme/startOver(channel:start:stop:)``)
    /// once whoever it was handed to has let it go.
    var handedOn: Programme?
    var programmeLine = 0
    /// The contents handed on before (``XMLTVReader/contents``).
    var contents: (any ProgrammeContents)?
    /// Whether the element just started is a programme whose content may be known: the reader looks at it next.
    var openedProgramme = false
    /// The key of the programme being read, to hand it on with, what issues counted at its start, and where the
    /// reader found its end tag; and where the end tag being read is.
    var reading: (content: Int64, issues: Int, end: Int)?
    var endTagAt = 0
    private var lastChannel = LastChannel()
    private var language: String?
    private var secondaryAttribute: String?
    private var credit: Credit?
    private var rating: Rating?
    private var subtitles: Subtitles?

    init() {
        stack.reserveCapacity(16)
        text.reserveCapacity(4096)
    }

    // MARK: - Events

    mutating func text(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws {
        guard skipDepth == 0 else { return }
        if stack.isEmpty {
            if p[range].contains(where: { !XMLText.isSpace($0) }) {
                throw hasClosedRoot ? XMLTVError(.malformed, saying: "text after the closing </tv>") : XMLTVError(.malformed, saying: "text before the <tv> element")
            }
            return
        }
        if stack.count >= 3 {
            XMLText.appendDecoded(p, range, into: &text, issues: &entityIssues)
        }
    }

    mutating func cdata(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws {
        guard skipDepth == 0, stack.count >= 3 else { return }
        text.append(contentsOf: p[range])
    }

    mutating func startElement(_ p: UnsafeBufferPointer<UInt8>, _ nameRange: Range<Int>, _ attributes: Attributes,
                               line: Int) throws {
        let hash = ElementName.hash(p, nameRange)
        let name = ElementName.named(hash)
        let parent = stack.last?.name
        openedProgramme = false
        guard stack.count < Self.maximumDepth else {
            throw XMLTVError(.tooLarge, saying: "elements nested more than {depth} deep; XMLTV needs 5, so the file is broken or hostile",
                             ["depth": String(Self.maximumDepth)])
        }
        stack.append(Frame(hash: hash, name: name))
        if skipDepth > 0 {
            skipDepth += 1
            return
        }
        guard let parent else {
            if hasClosedRoot { throw XMLTVError(.malformed, saying: "a second root element after </tv>") }
            guard name == .tv else {
                throw XMLTVError(.notXMLTV, saying: "the root element is <{element}>, not <tv>: this is not an XMLTV file",
                                 ["element": String(decoding: p[nameRange], as: UTF8.self)])
            }
            hasSeenRoot = true
            return
        }
        if let role = parent.creditRole, credit != nil, credit?.name.isEmpty == true {
            // Mixed content: the person's name comes before their <image> or <url>.
            _ = role
            let value = textString()
            credit?.name = value
        }
        // Emptied only when it holds some: most elements hold none, and emptying an empty array is not free.
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
        var wanted = true
        switch (parent, name) {
        case (.tv, .channel):
            let id = attributes.string("id", issues: &entityIssues).map(XMLText.trimmingSpace) ?? ""
            if id.isEmpty {
                issues.record(ListingIssue(kind: .skipped, line: line, message: Sentence(saying: "a <channel> without an id was skipped")))
                wanted = false
            } else {
                channel = Channel(id: ChannelID(id))
            }
        case (.tv, .programme):
            wanted = startProgramme(attributes, line: line)
            (openedProgramme, reading) = (wanted && contents != nil, nil)
        case (.channel, .displayName), (.programme, .title), (.programme, .subTitle), (.programme, .desc),
             (.programme, .category), (.programme, .keyword), (.programme, .language),
             (.programme, .origLanguage), (.programme, .country), (.programme, .premiere),
             (.programme, .lastChance), (.subtitles, .language):
            language = attributes.string("lang", issues: &entityIssues)
        case (.channel, .icon):
            if let icon = icon(attributes) { channel?.icons.append(icon) }
        case (.programme, .icon):
            if let icon = icon(attributes) { programme?.icons.append(icon) }
        case (.rating, .icon), (.starRating, .icon):
            if let icon = icon(attributes) { rating?.icons.append(icon) }
        case (.channel, .url), (.channel, .lcn), (.programme, .url), (.programme, .date), (.programme, .credits),
             (.programme, .video), (.programme, .audio), (.video, _), (.audio, _), (.rating, .value),
             (.starRating, .value):
            break
        case (.programme, .length):
            secondaryAttribute = attributes.string("units", issues: &entityIssues)
        case (.programme, .episodeNum):
            secondaryAttribute = attributes.string("system", issues: &entityIssues)
        case (.programme, .previouslyShown):
            programme?.previouslyShown = PreviouslyShown(start: attributes.string("start", issues: &entityIssues),
                                                         channel: attributes.string("channel", issues: &entityIssues))
        case (.programme, .new):
            programme?.isNew = true
        case (.programme, .subtitles):
            subtitles = Subtitles(type: attributes.string("type", issues: &entityIssues))
        case (.programme, .rating), (.programme, .starRating):
            rating = Rating(system: attributes.string("system", issues: &entityIssues), value: "")
        case (.credits, _):
            if let role = name.creditRole {
                let isGuest = attributes.string("guest", issues: &entityIssues) == "yes" || role == .guest
                credit = Credit(role: role, name: "", character: attributes.string("role", issues: &entityIssues),
                                isGuest: isGuest)
            } else {
                wanted = false
            }
        case (let role, .image) where role.creditRole != nil, (let role, .url) where role.creditRole != nil:
            break
        default:
            wanted = false
        }
        if !wanted { skipDepth = 1 }
    }

    /// Closes the element named at `nameRange`; returns a channel or programme when one is complete.
    mutating func endElement(_ p: UnsafeBufferPointer<UInt8>, _ nameRange: Range<Int>) throws -> XMLTVItem? {
        let hash = ElementName.hash(p, nameRange)
        guard let frame = stack.popLast() else {
            throw XMLTVError(.malformed, saying: "end tag </{element}> without a start tag", ["element": String(decoding: p[nameRange], as: UTF8.self)])
        }
        guard frame.hash == hash else {
            let element = String(decoding: p[nameRange], as: UTF8.self)
            throw frame.name == .other
                ? XMLTVError(.malformed, saying: "end tag </{element}> does not match the open element", ["element": element])
                : XMLTVError(.malformed, saying: "end tag </{element}> does not match the open <{open}>", ["element": element, "open": "\(frame.name)"])
        }
        if skipDepth > 0 {
            skipDepth -= 1
            return nil
        }
        let parent = stack.last?.name
        defer { if !text.isEmpty { text.removeAll(keepingCapacity: true) } }
        switch (parent, frame.name) {
        case (nil, .tv):
            hasClosedRoot = true
        case (.tv, .channel):
            defer { channel = nil }
            return channel.map { .channel($0) }
        case (.tv, .programme):
            return finishProgramme()
        case (.channel, .displayName):
            let name = textString()
            if !name.isEmpty { channel?.displayNames.append(LocalizedText(name, language: language)) }
        case (.channel, .url):
            let url = textString()
            appendNonEmpty(&channel, \.urls, url)
        case (.channel, .lcn):
            let number = textString()
            if !number.isEmpty { channel?.number = number }
        case (.programme, .title):
            if let value = localized() { programme?.titles.append(value) }
        case (.programme, .subTitle):
            if let value = localized() { programme?.subTitles.append(value) }
        case (.programme, .desc):
            if let value = localized() { programme?.descriptions.append(value) }
        case (.programme, .category):
            if let value = localized() { programme?.categories.append(value) }
        case (.programme, .keyword):
            if let value = localized() { programme?.keywords.append(value) }
        case (.programme, .country):
            if let value = localized() { programme?.countries.append(value) }
        case (.programme, .language):
            let value = localized()
            programme?.language = value
        case (.programme, .origLanguage):
            let value = localized()
            programme?.originalLanguage = value
        case (.programme, .premiere):
            let value = localized() ?? LocalizedText("")
            programme?.premiere = value
        case (.programme, .lastChance):
            let value = localized() ?? LocalizedText("")
            programme?.lastChance = value
        case (.programme, .date):
            let date = textString()
            if !date.isEmpty { programme?.date = date }
        case (.programme, .url):
            let url = textString()
            appendNonEmpty(&programme, \.urls, url)
        case (.programme, .length):
            finishLength()
        case (.programme, .episodeNum):
            let value = textString()
            if !value.isEmpty {
                programme?.episodeNumbers.append(EpisodeNumber(system: secondaryAttribute ?? "onscreen", value: value))
            }
        case (.video, .present):
            let value = Self.yesNo(textString())
            setMedia(\.video, Video()) { $0.isPresent = value }
        case (.video, .colour):
            let value = Self.yesNo(textString())
            setMedia(\.video, Video()) { $0.isColour = value }
        case (.video, .aspect):
            let value = textString()
            setMedia(\.video, Video()) { $0.aspect = value }
        case (.video, .quality):
            let value = textString()
            setMedia(\.video, Video()) { $0.quality = value }
        case (.audio, .present):
            let value = Self.yesNo(textString())
            setMedia(\.audio, Audio()) { $0.isPresent = value }
        case (.audio, .stereo):
            let value = textString()
            setMedia(\.audio, Audio()) { $0.stereo = value }
        case (.programme, .video):
            if programme?.video == nil { programme?.video = Video() }
        case (.programme, .audio):
            if programme?.audio == nil { programme?.audio = Audio() }
        case (.subtitles, .language):
            let value = localized()
            subtitles?.language = value
        case (.programme, .subtitles):
            if let subtitles { programme?.subtitles.append(subtitles) }
            subtitles = nil
        case (.rating, .value), (.starRating, .value):
            let value = textString()
            rating?.value = value
        case (.programme, .rating), (.programme, .starRating):
            if let rating, !rating.value.isEmpty {
                if frame.name == .rating { programme?.ratings.append(rating) } else { programme?.starRatings.append(rating) }
            }
            rating = nil
        case (.credits, _) where frame.name.creditRole != nil:
            if var credit {
                if credit.name.isEmpty { credit.name = textString() }
                if !credit.name.isEmpty { programme?.credits.append(credit) }
            }
            credit = nil
        case (let role?, .image) where role.creditRole != nil:
            let image = textString()
            if !image.isEmpty { credit?.images.append(image) }
        case (let role?, .url) where role.creditRole != nil:
            let url = textString()
            if !url.isEmpty { credit?.urls.append(url) }
        default:
            break
        }
        return nil
    }

    // MARK: - Programmes

    private mutating func startProgramme(_ attributes: Attributes, line: Int) -> Bool {
        programmeLine = line
        let channelID = attributes.raw("channel").map { lastChannel.read($0, issues: &entityIssues) } ?? ""
        guard !channelID.isEmpty else {
            issues.record(ListingIssue(kind: .skipped, line: line, message: Sentence(saying: "a <programme> without a channel attribute was skipped")))
            return false
        }
        guard let startRaw = attributes.raw("start") else {
            issues.record(ListingIssue(kind: .skipped, line: line, channel: ChannelID(channelID),
                                       message: Sentence(saying: "a <programme> without a start time was skipped")))
            return false
        }
        guard let start = recentTime.parse(startRaw, localZone: localZone) else {
            issues.record(ListingIssue(kind: .skipped, line: line, channel: ChannelID(channelID),
                                       message: Sentence(saying: "start \"{value}\" is not an XMLTV time (YYYYMMDDhhmmss +hhmm); programme skipped",
                                                         ["value": String(decoding: startRaw, as: UTF8.self)])))
            return false
        }
        var stop: Int64?
        if let stopRaw = attributes.raw("stop") {
            stop = recentTime.parse(stopRaw, localZone: localZone)
            if stop == nil {
                issues.record(ListingIssue(kind: .invalidValue, line: line, channel: ChannelID(channelID),
                                           start: Date(unixSeconds: start),
                                           message: Sentence(saying: "stop \"{value}\" is not an XMLTV time; treated as missing",
                                                             ["value": String(decoding: stopRaw, as: UTF8.self)])))
            }
        }
        let channel = ChannelID(channelID), startDate = Date(unixSeconds: start)
        let stopDate = stop.map { Date(unixSeconds: $0) }
        if var reused = handedOn.take(), reused.startOver(channel: channel, start: startDate, stop: stopDate) {
            programme = reused
        } else {
            programme = Programme(channel: channel, start: startDate, stop: stopDate, titles: [])
        }
        if let clump = attributes.string("clumpidx", issues: &entityIssues), clump != "0/1" {
            programme?.clumpIndex = clump
        }
        return true
    }

    private mutating func finishProgramme() -> XMLTVItem? {
        guard var finished = programme.take() else { return nil }
        defer { reading = nil }
        if finished.titles.isEmpty {
            issues.record(ListingIssue(kind: .missingTitle, line: programmeLine, channel: finished.channel,
                                       start: finished.start, message: Sentence(saying: "programme has no title; kept with an empty one")))
        }
        if let stop = finished.stop, stop < finished.start {
            issues.record(ListingIssue(kind: .stopBeforeStart, line: programmeLine, channel: finished.channel,
                                       start: finished.start, title: finished.title,
                                       message: Sentence(saying: "stop {stop} is before start {start}; the stop was dropped and derived from the next programme",
                                                         ["stop": XMLTVTimestamp.format(stop), "start": XMLTVTimestamp.format(finished.start)])))
            finished.stop = nil
        }
        handedOn = finished
        // Its end where the reader's search found it: an attribute value holding `</programme>` (malformed, but read)
        // would have cut the content, and another with the same start would pass for it.
        guard let reading, reading.issues == issueCount, reading.end == endTagAt else {
            return .programme(finished, line: programmeLine)
        }
        return .remembered(finished, line: programmeLine, content: reading.content)
    }

    private mutating func finishLength() {
        let value = textString()
        let unit = switch secondaryAttribute { case "seconds": 1; case "hours": 3600; default: 60 }
        let range = Programme.lengthRange.lowerBound...(Programme.lengthRange.upperBound / unit)
        guard let number = Bounded.integer(value, in: range) else {
            issues.record(ListingIssue(kind: .invalidValue, line: programmeLine, channel: programme?.channel,
                                       message: Sentence(saying: "length \"{value}\" is not a whole number from {lowest} to {highest} (units=\"{units}\"); ignored",
                                                         ["value": value, "lowest": "\(range.lowerBound)", "highest": "\(range.upperBound)",
                                                          "units": secondaryAttribute ?? "minutes"])))
            return
        }
        programme?.length = number * unit
    }

    // MARK: - Small pieces

    private mutating func localized() -> LocalizedText? {
        let value = textString()
        return value.isEmpty ? nil : LocalizedText(value, language: language)
    }

    private mutating func textString() -> String {
        let bytes = text
        return XMLText.string(bytes, invalid: &entityIssues.invalidUTF8)
    }

    private func appendNonEmpty<Value>(_ target: inout Value?, _ field: WritableKeyPath<Value, [String]>, _ value: String) {
        if !value.isEmpty { target?[keyPath: field].append(value) }
    }

    /// Changes the programme's video or audio, made first when it has none.
    private mutating func setMedia<Media>(_ field: WritableKeyPath<Programme, Media?>, _ made: Media,
                                          _ change: (inout Media) -> Void) {
        var media = programme?[keyPath: field] ?? made
        change(&media)
        programme?[keyPath: field] = media
    }
}
