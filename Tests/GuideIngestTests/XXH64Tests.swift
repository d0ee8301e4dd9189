import GuideCore
@testable import GuideIngest
import Testing

/// XXH64 against the reference library's answers (libxxhash 0.8.1, `XXH64(input, length, seed)`), whole and in pieces.
@Suite struct XXH64Tests {
    /// Byte i of the pattern is (31 i + 7) mod 251; each length with seed 0 and with seed 2026.
    static let answers: [(Int, UInt64, UInt64)] = [
        (0, 0xef46db3751d8e999, 0xf6cf42b7763825c2), (1, 0xa96c7f0ce858bbb7, 0x5ab3fe17a7bfe5a4),
        (3, 0x56e6957632a487f9, 0x0000de4f3cca5da9), (4, 0xc60d15b1e3ff8f04, 0x6d15fddddf65a5c4),
        (7, 0xafbefc3d6c6f9a8e, 0xe19194ced57a75ce), (8, 0x3da5c7aa269683e0, 0x42ebecdb259345ed),
        (9, 0x465ec429b13c3892, 0xf7c9dac1f077f9eb), (15, 0xdee89d8a065a6233, 0xb1fd32ab21fc1b2e),
        (16, 0x1330489a77679c80, 0xf51a225a5a480f91), (31, 0x3391303d485e846e, 0x397ee79a96340921),
        (32, 0x40b7aff75d45bbc8, 0x64f627939921292d), (33, 0x4997cae4951c17a5, 0xc9f7792d1cb3d519),
        (63, 0x2944b4dafc69b206, 0x46d91bb0dbe29354), (64, 0xbb76f6ef19bd5a1b, 0x1a5c1b24f03a67a5),
        (65, 0x814e0c654a9fd640, 0xb5703a84882ea3ac), (100, 0xf0b29a915621716d, 0x16a3640151493ee9),
        (255, 0x398c7418ebd3f8c4, 0x941cdcf06e5b0e8d), (300, 0x8ff3f3567240b4f5, 0x53c26fde76dc670f),
    ]
    static let pattern: [UInt8] = (0..<300).map { UInt8(($0 * 31 + 7) % 251) }

    static func hash(_ bytes: ArraySlice<UInt8>, seed: UInt64 = 0, pieces: Int = .max) -> UInt64 {
        var hasher = XXH64(seed: seed)
        for start in stride(from: bytes.startIndex, to: bytes.endIndex, by: pieces) {
            bytes[start..<min(start + pieces, bytes.endIndex)].withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalize()
    }

    @Test func agreesWithTheReferenceWholeAndInPieces() {
        for (length, plain, seeded) in Self.answers {
            for pieces in [.max, 1, 5, 31, 32, 33] {
                #expect(Self.hash(Self.pattern.prefix(length), pieces: pieces) == plain, "\(length) bytes in pieces of \(pieces)")
                #expect(Self.hash(Self.pattern.prefix(length), seed: 2026, pieces: pieces) == seeded, "\(length) bytes, seeded")
            }
        }
        #expect(Self.hash(Array("abc".utf8)[...]) == 0x44bc2cf5ad770999)
        let programme = #"<programme start="20261130060000 +0000" channel="c1"><title>Noticias 24 · 新闻</title></programme>"#
        #expect(Self.hash(Array(programme.utf8)[...], pieces: 17) == 0xa6d0ae99d48e077d)
    }
}
