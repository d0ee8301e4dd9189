/// XXH64, the 64-bit xxHash (Yann Collet; https://github.com/Cyan4973/xxHash, doc/xxhash_spec.md), taken a piece at a
/// time. The layout scan's digest of each channel's day: it was SHA-256 (1.8 GB/s here, a third of the scan's time
/// on a 912 MB guide), kept to 64 bits. What it guards is whether a day is the one imported before; a feed that
/// wanted a day kept could send it again, so nothing is gained by forging a collision, and a change is missed by
/// chance once in 2^64. Also what an import finds a programme's body by (its folded text and its descriptions as
/// kept, `PreparedProgramme.bodyHash`). `XXH64Tests` checks it against the reference library's answers.
package struct XXH64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private let seed: UInt64
    private var lanes: (UInt64, UInt64, UInt64, UInt64)
    private var total: UInt64 = 0
    /// Bytes short of a 32-byte stripe, kept for the next piece or the end.
    private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var pendingCount = 0

    package init(seed: UInt64 = 0) {
        self.seed = seed
        lanes = (seed &+ Self.prime1 &+ Self.prime2, seed &+ Self.prime2, seed, seed &- Self.prime1)
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        total &+= UInt64(count)
        if pendingCount > 0 {
            let taken = min(32 - pendingCount, count)
            let filled = pendingCount
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress?.advanced(by: filled).copyMemory(from: next, byteCount: taken) }
            pendingCount += taken
            next += taken
            count -= taken
            guard pendingCount == 32 else { return }
            let stripe = pending
            withUnsafeBytes(of: stripe) { if let base = $0.baseAddress { consume(base) } }
            pendingCount = 0
        }
        // The lanes in locals while the stripes go by: through `self` each was stored and loaded again every stripe.
        var (v1, v2, v3, v4) = lanes
        while count >= 32 {
            v1 = Self.round(v1, UInt64(littleEndian: next.loadUnaligned(as: UInt64.self)))
            v2 = Self.round(v2, UInt64(littleEndian: next.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            v3 = Self.round(v3, UInt64(littleEndian: next.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
            v4 = Self.round(v4, UInt64(littleEndian: next.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
            next += 32
            count -= 32
        }
        lanes = (v1, v2, v3, v4)
        if count > 0 {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress?.copyMemory(from: next, byteCount: count) }
            pendingCount = count
        }
    }

    package func finalize() -> UInt64 {
        var hash: UInt64
        if total >= 32 {
            let (v1, v2, v3, v4) = lanes
            hash = Self.rotate(v1, 1) &+ Self.rotate(v2, 7) &+ Self.rotate(v3, 12) &+ Self.rotate(v4, 18)
            for lane in [v1, v2, v3, v4] {
                hash = (hash ^ Self.round(0, lane)) &* Self.prime1 &+ Self.prime4
            }
        } else {
            hash = seed &+ Self.prime5
        }
        hash &+= total
        let count = pendingCount
        withUnsafeBytes(of: pending) { tail in
            var at = 0
            while at + 8 <= count {
                hash ^= Self.round(0, UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                hash = Self.rotate(hash, 27) &* Self.prime1 &+ Self.prime4
                at += 8
            }
            if at + 4 <= count {
                hash ^= UInt64(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: at, as: UInt32.self))) &* Self.prime1
                hash = Self.rotate(hash, 23) &* Self.prime2 &+ Self.prime3
                at += 4
            }
            while at < count {
                hash ^= UInt64(tail[at]) &* Self.prime5
                hash = Self.rotate(hash, 11) &* Self.prime1
                at += 1
            }
        }
        hash ^= hash >> 33
        hash &*= Self.prime2
        hash ^= hash >> 29
        hash &*= Self.prime3
        return hash ^ (hash >> 32)
    }

    private mutating func consume(_ stripe: UnsafeRawPointer) {
        lanes.0 = Self.round(lanes.0, UInt64(littleEndian: stripe.loadUnaligned(as: UInt64.self)))
        lanes.1 = Self.round(lanes.1, UInt64(littleEndian: stripe.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        lanes.2 = Self.round(lanes.2, UInt64(littleEndian: stripe.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
        lanes.3 = Self.round(lanes.3, UInt64(littleEndian: stripe.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
    }

    private static func round(_ lane: UInt64, _ input: UInt64) -> UInt64 {
        rotate(lane &+ input &* prime2, 31) &* prime1
    }

    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 - bits))
    }
}
