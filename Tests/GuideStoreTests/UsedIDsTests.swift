@testable import GuideStoreSQLite
import Testing

/// The ids the prune keeps, as bits up to the table's largest id and as a set beyond (ids the table never handed out).
@Suite struct UsedIDsTests {
    @Test func holdsWhatWasInsertedAndNothingElse() {
        for largest: Int64 in [0, 1, 63, 64, 1000] {
            var used = UsedIDs(upTo: largest)
            let kept: [Int64] = [0, 1, 63, 64, 65, largest, largest + 1, 1 << 40, -5, .max, .min].filter { $0 % 2 != 0 || $0 == 0 || $0 < 0 }
            for id in kept { used.insert(id) }
            for id: Int64 in [0, 1, 2, 62, 63, 64, 65, 127, 128, largest - 1, largest, largest + 1, largest + 2, 1 << 40, -5, -4, .max, .min] {
                #expect(used.contains(id) == kept.contains(id), "\(id) of \(largest)")
            }
        }
    }

    @Test func aTableOfHugeIDsIsKeptInASet() {
        var used = UsedIDs(upTo: .max)
        used.insert(.max)
        used.insert(1 << 30)
        #expect(used.contains(.max) && used.contains(1 << 30) && !used.contains(.max - 1) && !used.contains(0))
    }
}
