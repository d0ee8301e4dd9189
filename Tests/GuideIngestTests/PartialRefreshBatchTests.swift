import Foundation
import Testing
@testable import GuideIngest

/// A partial refresh longer than one of PostgreSQL's batches (2,000 programmes): what each channel's changed days
/// replace goes with the batch after its run (SQLite: at the run's end), not all at the import's end, and the guide is
/// still the one reading the whole file gives.
@Suite struct PartialRefreshBatchTests {
    @Test func changedDaysOnEveryChannelOfALongGuideAgree() async throws {
        let first = PartialRefreshTests.Guide(channels: 24)
        var changed = first
        for channel in changed.channels.indices {
            // Three days on every channel, two of them apart: each channel's part keeps the day between them. About
            // 2,500 programmes read: more than a batch.
            for day in [1, 2, 4] {
                for index in changed.day(day, of: channel) {
                    changed.channels[channel].programmes[index] = changed.channels[channel].programmes[index]
                        .replacingOccurrences(of: "<title>", with: "<title>Changed \(day): ")
                }
            }
        }
        // And one channel's last day gone: its rows there go too.
        let last = changed.day(6, of: 7)
        changed.channels[7].programmes.removeSubrange(try #require(last.first)...(try #require(last.last)))
        // Then the same days changed back: what the first partial refresh stored is replaced in turn.
        try await PartialRefreshTests.expectSame(first, then: [changed, first], reads: [{ $0 > 2_500 }, { $0 > 2_500 }])
    }
}
