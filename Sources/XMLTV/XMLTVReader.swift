import Foundation
import GuideCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the reader hands on as it goes: a channel or a programme, each as soon as its element closes.
public enum XMLTVItem: Sendable {
    case channel(Channel)
    /// A programme and the line its element starts on, for the import report.
    case programme(Programme, line: Int)
    /// A programme and its line from a reader given ``XMLTVReader/contents``, with the key of its content: every byte
    /// between its start and end tags, and its clump index. Programmes of one key say the same but for their channel
    /// and times. Handed on only when reading it counted no issue, so that a repeat has none to count either.
    case remembered(Programme, line: Int, content: Int64)
    /// A programme whose content ``XMLTVReader/contents`` knows: not read again, its fields are those handed on before
    /// under its key.
    case repeated(ProgrammeRepeat)
}

/// A streaming XMLTV reader: feed it bytes in chunks of any size and it hands on each channel and programme as soon
/// as it is complete, holding no more than the current element in memory.
///
/// It reads UTF-8 (with or without BOM), ISO-8859-1 and Windows-1252; DOCTYPEs are skipped, never expanded or fetched.
/// Malformed XML throws an ``XMLTVError`` with line and column; problems inside one programme are repaired or
/// skipped and recorded in ``issues``.
public struct XMLTVReader {
    /// Problems found and what was done about them.
    public var issues: IssueLog {
        get { builder.issues }
        set { builder.issues = newValue }
    }
    /// The contents handed on before, when the taker remembers them: a programme whose content they know is handed on
    /// as a repeat, its content not read (``ProgrammeContents``).
    public var contents: (any ProgrammeContents)? {
        get { builder.contents }
        set { builder.contents = newValue }
    }
    /// The largest single token (a tag, a text run) accepted; a bigger one is hostile or broken input.
    public var maximumTokenBytes = 16 << 20
    /// The largest start tag, attributes and all: real ones are a few hundred bytes, so a megabyte is an attack
    /// (a 10 MB attribute value) or a broken file.
    public var maximumTagBytes = 1 << 20
    /// When set, times are read as wall-clock times in this zone and whatever offset they state is ignored: for
    /// feeds that write local times with a wrong offset.
    public var localZone: TimeZone? {
        get { builder.localZone }
        set { builder.localZone = newValue }
    }

    // Internal, not private: XMLTVReader+Positions.swift reads them.
    var buffer: [UInt8] = []
    private var position = 0
    private var encoding: TextEncoding = .utf8
    private var hasReadPrologue = false
    private var builder = XMLTVBuilder()
    private var attributeRanges: [(name: Range<Int>, value: Range<Int>)] = []
    // Line bookkeeping: `lineCursor` is an offset into `buffer` whose line is `lineAtCursor`.
    var lineCursor = 0
    var lineAtCursor = 1
    var columnBase = 1

    public init() {}

    /// Reads the next chunk; `emit` receives every channel and programme completed by it.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (XMLTVItem) throws -> Void) throws {
        if hasReadPrologue && encoding != .utf8 {
            encoding.transcode(chunk, into: &buffer)
        } else {
            buffer.append(contentsOf: chunk)
        }
        if !hasReadPrologue {
            guard try readPrologue(final: false) else { return }
        }
        try scan(final: false, emit)
    }

    /// Reads a whole byte array; for tests and small inputs.
    public mutating func feed(_ bytes: [UInt8], _ emit: (XMLTVItem) throws -> Void) throws {
        try bytes.withUnsafeBytes { try feed($0, emit) }
    }

    /// Signals the end of input: reads what is left and checks the document was complete.
    public mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        if !hasReadPrologue { _ = try readPrologue(final: true) }
        try scan(final: true, emit)
        if let open = builder.openElementEnding {
            throw error(.truncated, open, at: buffer.count)
        }
        if !builder.hasSeenRoot {
            throw XMLTVError(.notXMLTV, saying: "no <tv> element: this is not an XMLTV file")
        }
        builder.flushEntityIssues()
    }

    /// Reads a whole document in one go.
    public static func read(_ bytes: [UInt8]) throws -> (channels: [Channel], programmes: [Programme], issues: IssueLog) {
        var reader = XMLTVReader()
        var channels: [Channel] = []
        var programmes: [Programme] = []
        let collect: (XMLTVItem) -> Void = { item in
            switch item {
            case .channel(let channel): channels.append(channel)
            case .programme(let programme, _), .remembered(let programme, _, _): programmes.append(programme)
            case .repeated: break   // Not from a reader without contents.
            }
        }
        try reader.feed(bytes, collect)
        try reader.finish(collect)
        return (channels, programmes, reader.issues)
    }

    // MARK: - Prologue and encoding

    /// Handles a BOM and the XML declaration's encoding. Returns false while more bytes are needed to decide.
    private mutating func readPrologue(final: Bool) throws -> Bool {
        if buffer.count >= 2, (buffer[0] == 0xFE && buffer[1] == 0xFF) || (buffer[0] == 0xFF && buffer[1] == 0xFE) {
            throw XMLTVError(.unsupportedEncoding, saying: "the file is UTF-16; convert it to UTF-8 (iconv -f UTF-16 -t UTF-8)")
        }
        if buffer.count < 3 && !final { return false }
        if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { buffer.removeFirst(3) }
        let declarationStart: [UInt8] = Array("<?xml".utf8)
        if buffer.count < declarationStart.count && !final { return false }
        if buffer.starts(with: declarationStart) {
            guard let close = find([0x3F, 0x3E], in: buffer, from: 0, limit: 1024) else {
                if !final && buffer.count < 1024 { return false }
                throw error(.malformed, saying: "the XML declaration is not closed with '?>'", at: 0)
            }
            let declaration = String(decoding: buffer[0..<close], as: UTF8.self)
            if let name = Self.declaredEncoding(declaration) {
                guard let declared = TextEncoding(declared: name) else {
                    throw XMLTVError(.unsupportedEncoding,
                                     saying: "the file declares encoding \"{name}\", which tvguide does not read; convert it to UTF-8 (iconv -f {name} -t UTF-8)",
                                     ["name": name], line: 1)
                }
                encoding = declared
            }
            if encoding != .utf8 {
                let rest = Array(buffer[(close + 2)...])
                buffer.removeSubrange((close + 2)...)
                rest.withUnsafeBytes { encoding.transcode($0, into: &buffer) }
            }
        }
        hasReadPrologue = true
        return true
    }

    static func declaredEncoding(_ declaration: String) -> String? {
        guard let range = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop(while: { $0 == " " || $0 == "=" })
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix(while: { $0 != quote }))
    }

    private func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, limit: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        let last = min(bytes.count - needle.count, start + limit)
        guard start <= last else { return nil }
        for index in start...last where bytes[index] == needle[0] {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    // MARK: - Scanning

    private mutating func scan(final: Bool, _ emit: (XMLTVItem) throws -> Void) throws {
        var bytes: [UInt8] = []
        swap(&bytes, &buffer)
        defer { swap(&bytes, &buffer) }
        try bytes.withUnsafeBufferPointer { pointer in
            try scanTokens(pointer, final: final, emit)
        }
        // Drop what is consumed, keeping line numbers right.
        if position > 0 {
            bytes.withUnsafeBufferPointer { _ = line(at: position, $0) }
            columnBase = column(at: position, bytes)
            bytes.removeSubrange(0..<position)
            lineCursor = 0
            position = 0
        }
        if bytes.count > maximumTokenBytes {
            throw error(.tooLarge, saying: "a single tag or text is over {megabytes} MB; the file is broken or hostile",
                        ["megabytes": String(maximumTokenBytes >> 20)], at: 0, in: bytes)
        }
    }

    private mutating func scanTokens(_ p: UnsafeBufferPointer<UInt8>, final: Bool, _ emit: (XMLTVItem) throws -> Void) throws {
        guard let base = p.baseAddress else { return }
        let end = p.count
        var index = position
        defer { position = index }
        while index < end {
            if p[index] != 0x3C {  // text up to the next '<'
                let found = memchr(base + index, 0x3C, end - index)
                guard let found else {
                    if !final { return }
                    try located(index, p) { try $0.text(p, index..<end) }
                    index = end
                    return
                }
                let stop = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                try located(index, p) { try $0.text(p, index..<stop) }
                index = stop
                continue
            }
            guard index + 1 < end else {
                if final { throw error(.truncated, saying: "the file ends inside a tag", at: index, p) }
                return
            }
            switch p[index + 1] {
            case 0x2F:  // '</'
                guard let close = firstIndex(of: 0x3E, p, from: index + 2) else {
                    if final { throw error(.truncated, saying: "the file ends inside an end tag", at: index, p) }
                    return
                }
                var nameEnd = close
                while nameEnd > index + 2, XMLText.isSpace(p[nameEnd - 1]) { nameEnd -= 1 }
                let nameRange = (index + 2)..<nameEnd
                builder.endTagAt = index
                if let item = try located(index, p, { try $0.endElement(p, nameRange) }) {
                    try emit(item)
                }
                index = close + 1
            case 0x21:  // '<!'
                guard let next = try skipMarkup(p, from: index, final: final) else { return }
                index = next
            case 0x3F:  // '<?'
                guard let close = firstIndex(of: [0x3F, 0x3E], p, from: index + 2) else {
                    if final { throw error(.truncated, saying: "the file ends inside a processing instruction", at: index, p) }
                    return
                }
                index = close + 2
            default:
                guard let next = try startTag(p, from: index, final: final, emit) else { return }
                index = next
            }
        }
    }

    /// Reads a start tag at `start`; returns the index after it, or nil when it is not complete yet.
    private mutating func startTag(_ p: UnsafeBufferPointer<UInt8>, from start: Int, final: Bool,
                                   _ emit: (XMLTVItem) throws -> Void) throws -> Int? {
        let end = p.count
        var index = start + 1
        let nameStart = index
        while index < end, !XMLText.isSpace(p[index]), p[index] != 0x3E, p[index] != 0x2F { index += 1 }
        let nameRange = nameStart..<index
        guard !nameRange.isEmpty || index >= end else {
            throw error(.malformed, saying: "'<' is not followed by an element name (write &lt; for a literal '<')", at: start, p)
        }
        if !attributeRanges.isEmpty { attributeRanges.removeAll(keepingCapacity: true) }
        while true {
            while index < end, XMLText.isSpace(p[index]) { index += 1 }
            guard index < end else { return try incomplete(final, Sentence(saying: "the file ends inside a start tag"), start, p) }
            let byte = p[index]
            if byte == 0x3E || byte == 0x2F {
                var selfClosing = false
                if byte == 0x2F {
                    guard index + 1 < end else { return try incomplete(final, Sentence(saying: "the file ends inside a start tag"), start, p) }
                    guard p[index + 1] == 0x3E else { throw error(.malformed, saying: "expected '>' after '/' in a tag", at: index, p) }
                    selfClosing = true
                    index += 1
                }
                let attributes = Attributes(bytes: p, ranges: attributeRanges)
                let line = lineNumber(at: start, p)
                try located(start, p) { try $0.startElement(p, nameRange, attributes, line: line) }
                if selfClosing, let item = try located(start, p, { try $0.endElement(p, nameRange) }) {
                    try emit(item)
                } else if builder.openedProgramme, let content = contentEnd(p, from: index + 1),
                          let item = builder.knownContent(p, content.range) {
                    try emit(item)
                    return content.next
                }
                return index + 1
            }
            let attributeNameStart = index
            while index < end, p[index] != 0x3D, p[index] != 0x3E, !XMLText.isSpace(p[index]) { index += 1 }
            let attributeName = attributeNameStart..<index
            while index < end, XMLText.isSpace(p[index]) { index += 1 }
            guard index < end else { return try incomplete(final, Sentence(saying: "the file ends inside a start tag"), start, p) }
            guard p[index] == 0x3D, !attributeName.isEmpty else {
                throw error(.malformed, saying: "attribute without a value in <{element}>", ["element": String(decoding: p[nameRange], as: UTF8.self)],
                            at: attributeNameStart, p)
            }
            index += 1
            while index < end, XMLText.isSpace(p[index]) { index += 1 }
            guard index < end else { return try incomplete(final, Sentence(saying: "the file ends inside a start tag"), start, p) }
            let quote = p[index]
            guard quote == 0x22 || quote == 0x27 else {
                throw error(.malformed, saying: "attribute value is not in quotes", at: index, p)
            }
            guard let close = firstIndex(of: quote, p, from: index + 1) else {
                return try incomplete(final, Sentence(saying: "the file ends inside an attribute value"), start, p)
            }
            try checkTagSize(from: start, to: close, p)
            attributeRanges.append((attributeName, (index + 1)..<close))
            index = close + 1
        }
    }

    /// Skips a comment, CDATA section (handing its text on) or DOCTYPE at `start`.
    private mutating func skipMarkup(_ p: UnsafeBufferPointer<UInt8>, from start: Int, final: Bool) throws -> Int? {
        if hasPrefix(p, start, "<!--") {
            guard let close = firstIndex(of: [0x2D, 0x2D, 0x3E], p, from: start + 4) else {
                return try incomplete(final, Sentence(saying: "the file ends inside a comment"), start, p)
            }
            return close + 3
        }
        if hasPrefix(p, start, "<![CDATA[") {
            guard let close = firstIndex(of: [0x5D, 0x5D, 0x3E], p, from: start + 9) else {
                return try incomplete(final, Sentence(saying: "the file ends inside a CDATA section"), start, p)
            }
            try located(start, p) { try $0.cdata(p, (start + 9)..<close) }
            return close + 3
        }
        if hasPrefix(p, start, "<!DOCTYPE") {
            // Skip to the '>' that ends it, past any internal subset and quoted strings, never expanding anything.
            var index = start + 9
            var inSubset = false
            var quote: UInt8 = 0
            while index < p.count {
                let byte = p[index]
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == 0x22 || byte == 0x27 {
                    quote = byte
                } else if byte == 0x5B {
                    inSubset = true
                } else if byte == 0x5D {
                    inSubset = false
                } else if byte == 0x3E && !inSubset {
                    let text = String(decoding: p[start..<index], as: UTF8.self)
                    if text.contains("<!ENTITY") || text.contains("[") {
                        issues.record(ListingIssue(kind: .doctypeIgnored, line: lineNumber(at: start, p),
                                                   message: Sentence(saying: "the DOCTYPE declares entities or an internal subset; they were ignored, never expanded")))
                    }
                    return index + 1
                }
                index += 1
            }
            return try incomplete(final, Sentence(saying: "the file ends inside the DOCTYPE"), start, p)
        }
        if p.count - start < 9 && !final { return nil }
        throw error(.malformed, saying: "unknown markup after '<!'", at: start, p)
    }

    /// nil while more may come; at the end, `ending` (the file ends inside ...).
    private func incomplete(_ final: Bool, _ ending: Sentence, _ start: Int, _ p: UnsafeBufferPointer<UInt8>) throws -> Int? {
        if final { throw error(.truncated, ending, at: start, p) }
        try checkTagSize(from: start, to: p.count, p)
        return nil
    }

    /// Refuses a start tag longer than ``maximumTagBytes``, whether it is complete or still arriving.
    private func checkTagSize(from start: Int, to end: Int, _ p: UnsafeBufferPointer<UInt8>) throws {
        if end - start > maximumTagBytes {
            throw error(.tooLarge, saying: "a start tag is over {kilobytes} KB (an attribute value that long is broken or hostile)",
                        ["kilobytes": String(maximumTagBytes >> 10)], at: start, p)
        }
    }

    /// Runs a builder step, adding the line and column of `offset` to any error it throws.
    private mutating func located<Result>(_ offset: Int, _ p: UnsafeBufferPointer<UInt8>,
                                          _ body: (inout XMLTVBuilder) throws -> Result) throws -> Result {
        do {
            return try body(&builder)
        } catch var failure as XMLTVError where failure.line == nil {
            let place = location(offset, p)
            failure.line = place.line
            failure.column = place.column
            throw failure
        }
    }
}
