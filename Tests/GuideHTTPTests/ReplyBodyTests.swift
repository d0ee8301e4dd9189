import Foundation
import GuideCore
import GuideHTTP
import NIOCore
import TestReceivers
import Testing

/// A reply's body read whole within a bound: as sent, or inflated when its server compressed it (Schedules Direct is
/// asked to), the bound holding for what it inflates to.
@Suite struct ReplyBodyTests {
    static func reply(_ body: Data, encoding: String?) -> HTTPReply {
        let parts = stride(from: 0, to: body.count, by: 7).map { ByteBuffer(bytes: body[$0..<min(body.count, $0 + 7)]) }
        let queue = PartQueue(parts)
        return HTTPReply(status: 200, headers: encoding.map { ["content-encoding": $0] } ?? [:]) { queue.next() }
    }

    final class PartQueue: @unchecked Sendable {
        private var parts: [ByteBuffer]
        private let lock = NSLock()
        init(_ parts: [ByteBuffer]) { self.parts = parts }
        func next() -> ByteBuffer? { lock.withLock { parts.isEmpty ? nil : parts.removeFirst() } }
    }

    // Python's gzip.compress of '{"code":0,"message":"OK"}' 100 times (2,500 bytes), and zlib.compress of '{"code":0}'.
    static let gzipped = Data(base64Encoded: "H4sIANPrCGsC/6tWSs5PSVWyMtBRyk0tLk5MB7KV/L2VaqtHJUYlRiVGJUYlRiVGJUYlRiUGqwQAOxi6FMQJAAA=")!
    static let deflated = Data(base64Encoded: "eJyrVkrOT0lVsjKoBQASjwNC")!

    @Test func aCompressedAnswerIsInflatedWithinItsBound() async throws {
        let text = String(repeating: #"{"code":0,"message":"OK"}"#, count: 100)
        #expect(try await Self.reply(Self.gzipped, encoding: "gzip").body(upTo: 1 << 20) == Data(text.utf8))
        #expect(try await Self.reply(Self.deflated, encoding: "deflate").body(upTo: 1 << 20) == Data(#"{"code":0}"#.utf8))
        // 61 bytes sent, 2,500 inflated: the bound is the inflated size's.
        #expect(try await Self.reply(Self.gzipped, encoding: "gzip").body(upTo: 2_499) == nil)
        #expect(try await Self.reply(Self.gzipped, encoding: nil).body(upTo: 1 << 20) == Self.gzipped, "not said to be compressed: as sent")
        await #expect(throws: GzipInflater.Failure.self) {
            _ = try await Self.reply(Self.gzipped.prefix(30), encoding: "gzip").body(upTo: 1 << 20)
        }
        await #expect(throws: GzipInflater.Failure.self) {
            _ = try await Self.reply(Data("not gzip at all".utf8), encoding: "gzip").body(upTo: 1 << 20)
        }
    }

    /// A bomb (8 MiB of zeros, gzip'd to 8 KB) within a bound it would fit: it inflates past 50 times what was sent,
    /// and reading stops there (issue 43, point 2). Before, all 8 MiB were inflated and taken, 1,000 times what was sent.
    @Test func anAnswerInflatingPastFiftyTimesItsSizeIsRefused() async throws {
        let made = try await Program.run("/usr/bin/python3", arguments: ["-c", "import gzip,sys; sys.stdout.buffer.write(gzip.compress(bytes(8 << 20), 9))"])
        let bomb = Data(made.output)
        try #require(made.status == 0 && bomb.count < 16 << 10)
        #expect(try await Self.reply(bomb, encoding: "gzip").body(upTo: 64 << 20) == nil)
        // A stream inflated whole is counted against the bytes given so far: it stops at the first piece past them.
        let inflater = try GzipInflater(limit: InflationLimit(total: 64 << 20))
        var inflated = 0
        #expect(throws: GzipInflater.Failure.self) {
            try bomb.withUnsafeBytes { raw in try inflater.inflate(raw) { inflated += $0.count } }
        }
        #expect(inflated <= InflationLimit.slack + bomb.count * InflationLimit.realRatio, "\(inflated) bytes inflated")
        // Real data is far within it: the guide's sample listings inflate 8.8 times.
        let sample = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/GuideServer/Resources/sample-listings.xml.gz").standardized)
        let whole = try GzipInflater(limit: InflationLimit(total: 64 << 20))
        var total = 0
        try sample.withUnsafeBytes { raw in try whole.inflate(raw) { total += $0.count } }
        #expect(total == 4_105_945)
    }

    /// The rule's arithmetic at the ends of Int: no trap, never room below 0 or past the total.
    @Test func theInflationRuleHoldsAtTheEndsOfItsNumbers() {
        for (total, ratio) in [(Int.max, Int.max), (0, 0), (-1, -1), (64 << 20, 50)] {
            let limit = InflationLimit(total: total, ratio: ratio)
            for (inflated, consumed) in [(0, Int.max), (Int.max, 0), (-1, -1), (Int.max, Int.max), (0, 0)] {
                let room = limit.room(inflated: inflated, consumed: consumed)
                #expect(room >= 0 && room <= max(0, total), "\(total) \(ratio) \(inflated) \(consumed): \(room)")
            }
        }
        #expect(InflationLimit(total: 64 << 20).room(inflated: 0, consumed: 1_000) == 1_000 * 50 + InflationLimit.slack)
    }
}
