import Foundation
import GuideCore
@testable import GuideIngest
import GuideStore
import StoreTestSupport
import Testing
import XMLTV

/// A feed that changed in a few days is read only there (``RefreshPlan``): the guide must end up exactly as if the
/// whole file had been read, whatever changed (titles, a day gone, a start moved, a stop dropped, a channel added).
@Suite struct PartialRefreshTests {
    /// A real guide's channel (one week of a Russian regional channel) copied onto `channels` channels.
    struct Guide {
        var header: String
        /// Per channel, its programme elements in order.
        var channels: [(id: String, programmes: [String])]

        init(channels count: Int) {
            let text = String(decoding: RefreshTests.small, as: UTF8.self)
            let head = text.components(separatedBy: "<programme ")[0]
            let programmes = text.components(separatedBy: "<programme ").dropFirst()
                .map { "<programme " + $0.components(separatedBy: "</programme>")[0] + "</programme>" }
            header = head.replacingOccurrences(of: "<channel id=\"12-omsk\">", with: "<channel id=\"copy0\">")
            channels = (0..<count).map { copy in
                ("copy\(copy)", programmes.map { $0.replacingOccurrences(of: "channel=\"12-omsk\"", with: "channel=\"copy\(copy)\"") })
            }
        }

        var bytes: [UInt8] {
            Array((header + channels.map { $0.programmes.joined(separator: "\n") }.joined(separator: "\n") + "\n</tv>\n").utf8)
        }

        /// The indices of channel `channel`'s programmes starting on the `day`th date the guide has, as written (what a
        /// refresh compares, so the changes below fall on either side of where it cuts).
        func day(_ day: Int, of channel: Int) -> [Int] {
            let dates = channels[channel].programmes.map(Self.date)
            var seen: Set<String> = []  // Each date once, in order (`NSOrderedSet` kept every one of them).
            let distinct = dates.filter { seen.insert($0).inserted }
            return dates.indices.filter { dates[$0] == distinct[day] }
        }

        static func date(_ programme: String) -> String {
            String(programme.components(separatedBy: "start=\"")[1].prefix(8))
        }
    }

    /// The layout the scan finds in `bytes` fed `chunk` bytes at a time, as a download arrives; fails the test
    /// with the scan's refusal when it finds none.
    static func layout(of bytes: [UInt8], chunk: Int = .max) throws -> ListingLayout {
        var scanner = ListingLayoutScanner(localZone: nil)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            bytes[start..<min(start + chunk, bytes.count)].withUnsafeBytes { scanner.feed($0) }
        }
        let found = scanner.finish()
        return try #require(found, "chunks of \(chunk): \(scanner.refusal ?? "")")
    }

    /// What a user sees of the stored guide, stops included.
    static func rows(_ rig: RefreshTests.Rig) async throws -> [String] {
        try await rig.fixture.all().map {
            "\($0.programme.channel) \(Int($0.programme.start.timeIntervalSince1970))-\(Int($0.programme.stop?.timeIntervalSince1970 ?? 0)) "
                + "\($0.programme.title) | \($0.programme.subTitle ?? "") | \($0.programme.description ?? "")"
        }.sorted()
    }

    /// Refreshes `first` then each of `then` into two guides, one reading only what changed and one reading it all;
    /// they must agree, programme for programme.
    static func expectSame(_ first: Guide, then changes: [Guide], reads expected: [(Int) -> Bool]) async throws {
        let partial = try await RefreshTests.Rig()
        let full = try await RefreshTests.Rig(readsChangesOnly: false)
        for rig in [partial, full] {
            rig.server.script("/guide.xml", .file(first.bytes))
            try await rig.add("feed", "/guide.xml")
            let whole = try await rig.refresh("feed")
            #expect(whole.outcome == .imported && whole.unchanged == 0)
        }
        for (change, isExpected) in zip(changes, expected) {
            partial.server.script("/guide.xml", .file(change.bytes))
            let report = try await partial.refresh("feed")
            #expect(report.outcome == .imported)
            #expect(isExpected(report.unchanged), "unchanged: \(report.unchanged), read: \(report.programmes)")
            full.server.script("/guide.xml", .file(change.bytes))
            let reference = try await full.refresh("feed")
            #expect(reference.outcome == .imported && reference.unchanged == 0)
            #expect(report.channels == reference.channels && report.programmes + report.unchanged >= reference.programmes)
            let expectedRows = try await rows(full)
            let rows = try await rows(partial)
            #expect(rows.count == expectedRows.count)
            #expect(rows == expectedRows, "\(Set(rows).symmetricDifference(expectedRows).sorted().prefix(6))")
            // What the refresh itself asks of the source, without counting every programme, and the count when asked.
            let counted = try #require(try await partial.fixture.store.sources().first)
            let quick = try #require(try await partial.fixture.store.sources(counting: false).first)
            #expect(counted.programmes == rows.count && quick.programmes == 0)
            #expect(quick.importedAt != nil && quick.importedAt == counted.importedAt)
        }
        try await partial.close()
        try await full.close()
    }

    @Test func aChangedDayIsReadAloneAndTheGuideIsAsIfAllWereRead() async throws {
        let first = Guide(channels: 4)
        var titles = first
        for index in titles.day(3, of: 0) {
            titles.channels[0].programmes[index] = titles.channels[0].programmes[index].replacingOccurrences(of: "<title>", with: "<title>Changed: ")
        }
        // Titles changed on one day of one channel: the rest is not read.
        try await Self.expectSame(first, then: [titles], reads: [{ $0 > 800 }])
    }

    /// A refused file changes nothing when only its changed days are read either: a changed day whose XML the reader
    /// refuses (an end tag that does not match, which the layout scan does not look at) fails the refresh, the guide
    /// stays as it was, and so does what the store knows of the last import's bytes (the file imported before is then
    /// the same again). The next good file is read in part, and gives what reading it whole gives.
    @Test func aChangedDayTheReaderRefusesChangesNothing() async throws {
        let first = Guide(channels: 4)
        var titles = first
        for index in titles.day(3, of: 0) {
            titles.channels[0].programmes[index] = titles.channels[0].programmes[index]
                .replacingOccurrences(of: "<title>", with: "<title>Changed: ")
        }
        var refused = titles
        let broken = try #require(refused.day(3, of: 0).dropFirst().first)
        refused.channels[0].programmes[broken] = refused.channels[0].programmes[broken]
            .replacingOccurrences(of: "</title>", with: "</titl>")
        _ = try Self.layout(of: refused.bytes)   // Plain to the scan: only the changed day is read.

        let rig = try await RefreshTests.Rig()
        rig.server.script("/guide.xml", .file(first.bytes))
        try await rig.add("feed", "/guide.xml")
        #expect(try await rig.refresh("feed").outcome == .imported)
        let before = try await Self.rows(rig)
        rig.server.script("/guide.xml", .file(refused.bytes))
        let failed = try await rig.refresh("feed")
        #expect(failed.outcome == .failed, "\(failed)")
        #expect(try await Self.rows(rig) == before)
        rig.server.script("/guide.xml", .file(first.bytes))
        #expect(try await rig.refresh("feed").outcome == .unchanged)

        let full = try await RefreshTests.Rig(readsChangesOnly: false)
        full.server.script("/guide.xml", .file(titles.bytes))
        try await full.add("feed", "/guide.xml")
        #expect(try await full.refresh("feed").outcome == .imported)
        rig.server.script("/guide.xml", .file(titles.bytes))
        let read = try await rig.refresh("feed")
        #expect(read.outcome == .imported && read.unchanged > 800, "\(read)")
        #expect(try await Self.rows(rig) == (try await Self.rows(full)))
        try await rig.close()
        try await full.close()
    }

    /// The reader removes a download's temporary copy once it has read it (while the store still writes), whether it
    /// read the changed days or the whole file; a file it was not told to remove stays. A source naming a file of
    /// its own reads it in place, and a refresh never removes it, whole or in part.
    @Test func aCopyIsRemovedOnceReadAndASourcesOwnFileStays() async throws {
        let folder = TestScratch.folder("removed-once-read")
        let first = Guide(channels: 2)
        var changed = first
        for index in changed.day(3, of: 0) {
            changed.channels[0].programmes[index] = changed.channels[0].programmes[index]
                .replacingOccurrences(of: "<title>", with: "<title>Changed: ")
        }
        func write(_ guide: Guide, _ name: String) throws -> String {
            try Data(guide.bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
            return folder + "/" + name
        }
        let fixture = try await IngestFixture()
        let importer = ListingImporter(store: fixture.store)
        let (copy, kept) = (try write(first, "copy.xml"), try write(first, "kept.xml"))
        _ = try await importer.importFiles([(copy, "feed"), (kept, "feed")], as: SourceName("feed"),
                                           transform: ListingTransform(), removingOnceRead: [copy])
        #expect(!FileManager.default.fileExists(atPath: copy) && FileManager.default.fileExists(atPath: kept))

        let stored = try Self.layout(of: first.bytes).text(context: "c") { $0 }
        let previous = try #require(ListingLayout.groups(in: stored[...], context: "c"))
        let plan = try #require(RefreshPlan(layout: try Self.layout(of: changed.bytes), previous: previous,
                                            transform: ListingTransform()))
        for removes in [true, false] {
            let part = try write(changed, "part.xml")
            let read = try await importer.importFile(at: part, planned: plan, as: SourceName("feed"),
                                                     transform: ListingTransform(), removingOnceRead: removes)
            #expect(read.programmes > 0 && plan.unchanged > 0)
            #expect(FileManager.default.fileExists(atPath: part) == !removes)
        }

        let rig = try await RefreshTests.Rig()
        let own = try write(first, "own.xml")
        try await rig.fixture.store.addSource(SourceDefinition(name: SourceName("own"), format: .xmltv, location: own))
        #expect(try await rig.refresh("own").outcome == .imported)
        _ = try write(changed, "own.xml")
        let partial = try await rig.refresh("own")
        #expect(partial.outcome == .imported && partial.unchanged > 0, "\(partial)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: own)) == Data(changed.bytes))
        try await rig.close()
    }

    @Test func daysGoneStartsMovedStopsDroppedAndChannelsAddedAgree() async throws {
        let first = Guide(channels: 4)
        var changed = first
        // Channel 0: its first day gone (the window moved on) and its last programme's stop dropped.
        changed.channels[0].programmes.removeFirst(changed.day(0, of: 0).count)
        let last = changed.channels[0].programmes.count - 1
        changed.channels[0].programmes[last] = changed.channels[0].programmes[last].replacingOccurrences(
            of: #"stop="[0-9]+ \+0300" "#, with: "", options: .regularExpression)
        // Channel 1: a day in the middle gone.
        changed.channels[1].programmes.removeSubrange(changed.day(4, of: 1).first!...changed.day(4, of: 1).last!)
        // Channel 2: the first programme of day 5 starts ten minutes later (day 4's last one then runs on to it).
        let moved = changed.day(5, of: 2)[0]
        var element = Array(changed.channels[2].programmes[moved])
        let minute = try #require(String(element).range(of: "start=\"")).upperBound.utf16Offset(in: String(element)) + 10
        let tens = try #require(element[minute].wholeNumberValue)
        element[minute] = Character(String(tens < 5 ? tens + 1 : tens - 1))
        changed.channels[2].programmes[moved] = String(element)
        // Channel 3: the last programme of day 2 without a stop: it ends when day 3's first starts.
        let open = changed.day(2, of: 3).last!
        changed.channels[3].programmes[open] = changed.channels[3].programmes[open].replacingOccurrences(
            of: #"stop="[0-9]+ \+0300" "#, with: "", options: .regularExpression)
        // A new channel, named only by its programmes.
        changed.channels.append(("copy4", Array(first.channels[0].programmes.prefix(20)).map {
            $0.replacingOccurrences(of: "channel=\"copy0\"", with: "channel=\"copy4\"")
        }))
        // Then, again: the next refresh reads from what the partial one left.
        var again = changed
        for index in again.day(6, of: 1) {
            again.channels[1].programmes[index] = again.channels[1].programmes[index].replacingOccurrences(of: "<title>", with: "<title>Again: ")
        }
        // And a start no reader takes: the whole file is read (and the programme skipped), as without the plan.
        var hostile = again
        hostile.channels[2].programmes[5] = hostile.channels[2].programmes[5].replacingOccurrences(
            of: #"start="[^"]*""#, with: "start=\"9223372036854775807\"", options: .regularExpression)
        try await Self.expectSame(first, then: [changed, again, hostile], reads: [{ $0 > 400 }, { $0 > 800 }, { $0 == 0 }])
    }

    @Test func theSameLayoutBuiltTwiceHasTheSameDigests() throws {
        let bytes = Guide(channels: 3).bytes
        func layout(chunk: Int) throws -> ListingLayout { try Self.layout(of: bytes, chunk: chunk) }
        // Chunks of any size, down to a byte at a time, find the same groups.
        let whole = try layout(chunk: bytes.count)
        #expect(whole.programmes == 690 && whole.runs.count == 3)
        for chunk in [1, 7, 4096] {
            let other = try layout(chunk: chunk)
            #expect(other.runs.map(\.groups) == whole.runs.map(\.groups))
        }
        // A group's first line is the line its first programme starts (each programme starts a line here). Lines are
        // counted by their newline bytes: the header's are CRLF, one Character in a String, so splitting the text
        // counted four lines fewer than the file has and let a line four too far pass.
        let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
        for group in whole.runs.flatMap(\.groups) {
            #expect(lineStarts[group.line - 1] == Int(group.bytes.lowerBound), "\(group)")
            #expect(bytes[Int(group.bytes.lowerBound)..<Int(group.bytes.upperBound)].starts(with: Array("<programme ".utf8)))
        }
    }

    @Test func theStoredFormReadsBackAsItWasWritten() throws {
        var scanner = ListingLayoutScanner(localZone: nil)
        Guide(channels: 3).bytes.withUnsafeBytes { scanner.feed($0) }
        let found = scanner.finish()
        var layout = try #require(found, "\(scanner.refusal ?? "")")
        layout.settleDigests()
        let text = layout.text(context: "at 5") { $0 == "copy1" ? nil : "guide." + $0 }
        let read = try #require(ListingLayout.groups(in: text[...], context: "at 5"))
        #expect(read.keys.sorted() == ["copy0", "copy2"] && read["copy2"]?.target == "guide.copy2")
        for run in layout.runs where run.channel != "copy1" {
            #expect(read[run.channel]?.days == Dictionary(uniqueKeysWithValues: run.groups.map { ($0.day, $0.digest) }))
        }
        // Another context, and every kind of damage, read as nothing stored.
        let line = text.split(separator: "\n")[1]
        let damaged = [line.replacingOccurrences(of: ":", with: ";"), line + "\textra", line.replacingOccurrences(of: "\t", with: " "),
                       line + " 2026:", line + " :12", line + " 20261301:12345678901234567", line + " 1234567890123456789:1",
                       line + " 20261130:1G", line + " 20261130:-1"]
        #expect(ListingLayout.groups(in: text[...], context: "at 6") == nil)
        for bad in damaged {
            #expect(ListingLayout.groups(in: (text + "\n" + bad)[...], context: "at 5") == nil, "\(bad)")
        }
    }

    @Test func channelIDsAreNamedAsTheReaderNamesThem() throws {
        // References read, spaces around trimmed, an entity of the file's own kept as written: as the reader does.
        let guide = Guide(channels: 3)
        var text = String(decoding: guide.bytes, as: UTF8.self)
        text = text.replacingOccurrences(of: "channel=\"copy0\"", with: "channel=\" c34.A&amp;E&#233; \"")
            .replacingOccurrences(of: "channel=\"copy1\"", with: "channel=\"x&nbsp;y\"")
        var scanner = ListingLayoutScanner(localZone: nil)
        Array(text.utf8).withUnsafeBytes { scanner.feed($0) }
        let found = scanner.finish()
        let layout = try #require(found, "\(scanner.refusal ?? "")")
        #expect(layout.runs.map(\.channel) == ["c34.A&Eé", "x&nbsp;y", "copy2"])
        var reader = XMLTVReader()
        var named: [String] = []
        try reader.feed(Array(text.utf8)) { if case .programme(let programme, _) = $0, named.last != programme.channel.rawValue { named.append(programme.channel.rawValue) } }
        #expect(named == layout.runs.map(\.channel))
    }

    @Test func whatIsNotPlainIsReadWhole() throws {
        let plain = String(decoding: Guide(channels: 2).bytes, as: UTF8.self)
        var cases = [
            "a comment inside a programme": plain.replacingOccurrences(of: "<title>", with: "<!-- x --><title>"),
            "CDATA inside a programme": plain.replacingOccurrences(of: "<title>", with: "<title><![CDATA[x]]>"),
            "programmes of a channel apart": plain + "",   // Below: copy0 again after copy1.
            "gzip": "\u{1F}\u{8B}" + plain,
            "another encoding": plain.replacingOccurrences(of: "encoding='utf-8'", with: "encoding='iso-8859-1'"),
            "a programme naming no channel": plain.replacingOccurrences(of: "channel=\"copy1\"", with: "channel=\"  \""),
            "cut short": String(plain.dropLast(10)),
        ]
        // Starts no reader takes: the scan gives up, and the whole file is read (the reader skips them, saying so).
        let firstStart = try #require(plain.range(of: #"start="[^"]*""#, options: .regularExpression))
        for hostile in ["9223372036854775807", "-1", "1e308", "nan", "20261301000000 +0000", "20261130250000 +0000"] {
            cases["start=\"\(hostile)\""] = plain.replacingCharacters(in: firstStart, with: "start=\"\(hostile)\"")
        }
        for (name, text) in cases {
            var bytes = Array(text.utf8)
            if name == "programmes of a channel apart" {
                let extra = Guide(channels: 1).channels[0].programmes.last!
                bytes = Array(text.replacingOccurrences(of: "\n</tv>", with: "\n" + extra + "\n</tv>").utf8)
            }
            // Whole, and in chunks that cut a `<!` from its `<` and the SIMD blocks of the closing-tag search anywhere.
            for chunk in [Int.max, 1, 2, 31, 33, 4_096] {
                var scanner = ListingLayoutScanner(localZone: nil)
                for start in stride(from: 0, to: bytes.count, by: chunk) {
                    bytes[start..<min(start + chunk, bytes.count)].withUnsafeBytes { scanner.feed($0) }
                }
                #expect(scanner.finish() == nil, "\(name), chunks of \(chunk)")
            }
        }
    }

    /// A start's day is its first eight digits after spaces, never more (no value can overflow); anything else is none.
    @Test func aStartsDayIsItsFirstEightDigits() {
        let cases: [(String, Int64?)] = [
            ("20261205060000 +0000", 20_261_205), ("  20261205", 20_261_205), ("9223372036854775807", 92_233_720),
            ("99999999999999999999999", 99_999_999), ("-1", nil), ("1e308", nil), ("nan", nil), ("2026120", nil),
            ("2026-12-05", nil), ("", nil), ("202612\u{0}5", nil),
        ]
        for (text, day) in cases {
            let bytes = Array(text.utf8)
            let found = bytes.withUnsafeBufferPointer { ListingLayoutScanner.date($0[...]) }
            #expect(found == day, "\(text)")
        }
    }

    /// A `<!` inside a programme is refused wherever it lies against the 32-byte blocks the closing tag is looked for
    /// in, at the very end of a programme too; one after `</programme>`'s `<` is not a closing tag's.
    @Test func markupInsideAProgrammeIsFoundAnywhere() throws {
        let plain = String(decoding: Guide(channels: 1).bytes, as: UTF8.self)
        let expected = try Self.layout(of: Array(plain.utf8))
        for padding in 0..<40 {
            let spaces = String(repeating: " ", count: padding)
            let spaced = plain.replacingOccurrences(of: "</title>", with: "</title>" + spaces)
            #expect(try Self.layout(of: Array(spaced.utf8)).programmes == expected.programmes)
            for marked in [spaced.replacingOccurrences(of: "</programme>", with: "<!---->" + "</programme>"),
                           spaced.replacingOccurrences(of: "</title>", with: "</title><![CDATA[]]>")] {
                var scanner = ListingLayoutScanner(localZone: nil)
                Array(marked.utf8).withUnsafeBytes { scanner.feed($0) }
                #expect(scanner.finish() == nil, "padding \(padding)")
                #expect(scanner.refusal == "a comment or CDATA inside a programme", "padding \(padding)")
            }
        }
    }

    /// Start tags of other forms (another attribute, its value holding `>` and a quote of the other kind; spaces
    /// around `=`) and closing tags that start like `</programme` (`</premiere>`, `</p`) scan as the plain file does,
    /// in chunks of any size: the same days, the same programmes in each, each group from `<programme` to its end.
    @Test func startTagsOfOtherFormsAndLikeClosingTagsScanAlike() throws {
        let plain = String(decoding: Guide(channels: 3).bytes, as: UTF8.self)
        let varied = plain.replacingOccurrences(of: "<programme start=", with: "<programme x='a>b \"c' start =")
            .replacingOccurrences(of: "<title>", with: "<premiere>First</premiere><previously-shown/><title>")
            .replacingOccurrences(of: "</title>", with: " </p</title>")
        func layout(_ text: String, chunk: Int) throws -> (ListingLayout, [UInt8]) {
            let bytes = Array(text.utf8)
            return (try Self.layout(of: bytes, chunk: chunk), bytes)
        }
        #expect(varied.contains("<programme x='a>b \"c' start =\""))
        let (expected, _) = try layout(plain, chunk: Int.max)
        for chunk in [1, 7, 61, 333, 4_096, Int.max] {
            let (found, bytes) = try layout(varied, chunk: chunk)
            #expect(found.programmes == expected.programmes)
            #expect(found.runs.map { $0.groups.map(\.day) } == expected.runs.map { $0.groups.map(\.day) })
            #expect(found.runs.map { $0.groups.map(\.programmes) } == expected.runs.map { $0.groups.map(\.programmes) })
            for group in found.runs.flatMap(\.groups) {
                let text = bytes[Int(group.bytes.lowerBound)..<Int(group.bytes.upperBound)]
                #expect(text.starts(with: Array("<programme ".utf8)))
                #expect(text.reversed().starts(with: Array(">emmargorp/<".utf8)))
            }
        }
    }

    /// Stops no reader takes (past Int64, negative, 1e308, nan, a month 13) are read as none: the file stays plain,
    /// each programme running a second for the scan, with the same days and programmes as with its own stops.
    @Test func stopsNoReaderTakesLeaveTheFilePlain() throws {
        let plain = String(decoding: Guide(channels: 2).bytes, as: UTF8.self)
        let expected = try Self.layout(of: Array(plain.utf8))
        for hostile in ["9223372036854775807", "-1", "1e308", "nan", "20261301000000 +0000"] {
            let text = plain.replacingOccurrences(of: #"stop="[^"]*""#, with: "stop=\"\(hostile)\"",
                                                  options: .regularExpression)
            #expect(text.contains("stop=\"\(hostile)\""))
            for chunk in [61, Int.max] {
                let layout = try Self.layout(of: Array(text.utf8), chunk: chunk)
                #expect(layout.programmes == expected.programmes, "\(hostile)")
                #expect(layout.runs.map { $0.groups.map(\.day) } == expected.runs.map { $0.groups.map(\.day) })
            }
        }
    }

    /// `!` in text is not markup: the file stays plain, read in part like any other.
    @Test func anExclamationMarkInTextIsPlain() throws {
        let plain = String(decoding: Guide(channels: 2).bytes, as: UTF8.self)
        var scanner = ListingLayoutScanner(localZone: nil)
        Array(plain.utf8).withUnsafeBytes { scanner.feed($0) }
        let found = scanner.finish()
        let expected = try #require(found)
        var marked = ListingLayoutScanner(localZone: nil)
        Array(plain.replacingOccurrences(of: "<title>", with: "<title>Wow! ").utf8).withUnsafeBytes { marked.feed($0) }
        let markedFound = marked.finish()
        let layout = try #require(markedFound)
        #expect(layout.programmes == expected.programmes)
        #expect(layout.runs.map { $0.groups.map(\.day) } == expected.runs.map { $0.groups.map(\.day) })
    }

    /// The scan's newline count, 32 bytes at a time, against a byte at a time: every byte value, every alignment
    /// and length, newlines next to each other, and a run of them longer than a byte counts (255 blocks).
    @Test func newlinesAreCountedExactly() {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<4_096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes += Array(repeating: 0x0A, count: 40) + (0...255).map { UInt8($0) } + [0x0A, 0x0B, 0x09, 0x8A, 0x0A]
        bytes += Array(repeating: 0x0A, count: 20_000) + [0x0B]
        bytes.withUnsafeBufferPointer { all in
            for start in 0..<33 {
                let ends = [start, start + 1, start + 7, start + 31, start + 32, start + 33, 4_000, 4_500, 12_345,
                            24_000, all.count - 3, all.count]
                for end in ends where end >= start {
                    let slice = all[start..<end]
                    let expected = slice.filter { $0 == 0x0A }.count
                    #expect(ListingLayoutScanner.newlines(slice) == expected, "\(start)..<\(end)")
                }
            }
        }
    }
}

