import GuideCore

/// Appends length-prefixed values to bytes of its own, through a pointer: no array's uniqueness and capacity checked at
/// each byte, and no room reserved that the result keeps. ``bytes(_:)`` writes into room on the stack and returns an
/// array of exactly what was written; an import writes two of these a programme on its reading thread, where writing
/// them into arrays cost 2,500 instructions each, and each array kept 512 bytes for a programme's 91 (issue 46).
struct BinaryWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The bytes written.
    private(set) var length = 0
    /// Whether `base` is this writer's to free, not the stack's room ``bytes(_:)`` lends.
    private var ownsBase: Bool

    /// A writer with room for `capacity` bytes at first, on the heap.
    init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        ownsBase = true
    }

    private init(room: UnsafeMutableBufferPointer<UInt8>) {
        if let start = room.baseAddress, room.count > 0 {
            (base, capacity, ownsBase) = (start, room.count, false)
        } else {
            (base, capacity, ownsBase) = (.allocate(capacity: 16), 16, true)
        }
    }

    deinit {
        if ownsBase { base.deallocate() }
    }

    /// What `write` writes, written first into room on the stack (the heap only past ``stackRoom`` bytes).
    static func bytes(_ write: (inout BinaryWriter) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stackRoom) { room in
            var writer = BinaryWriter(room: room)
            write(&writer)
            return writer.bytes
        }
    }

    /// The room ``bytes(_:)`` starts with: more than most programmes' details or bodies take.
    static let stackRoom = 1024

    /// A copy of the bytes written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: length)) }

    /// Makes room for `more` bytes.
    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if more > capacity - length { grow(more) }
    }

    private mutating func grow(_ more: Int) {
        let wanted = max(capacity * 2, length + more)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: wanted)
        grown.initialize(from: base, count: length)
        if ownsBase { base.deallocate() }
        (base, capacity, ownsBase) = (grown, wanted, true)
    }

    mutating func byte(_ value: UInt8) {
        reserve(1)
        base[length] = value
        length += 1
    }

    /// LEB128, so small counts and lengths take one byte.
    mutating func count(_ value: Int) {
        unsigned(UInt64(max(0, value)))
    }

    /// LEB128 of any 64-bit value.
    mutating func unsigned(_ value: UInt64) {
        reserve(10)
        var remaining = value
        while remaining >= 0x80 {
            base[length] = UInt8(remaining & 0x7F) | 0x80
            length += 1
            remaining >>= 7
        }
        base[length] = UInt8(remaining)
        length += 1
    }

    mutating func string(_ value: String) {
        // In place: a copy to read it by `withUTF8` cost a reference count each way, for each text of each programme.
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { append(utf8: $0) }
        if written == nil {
            var copy = value
            copy.withUTF8 { append(utf8: $0) }
        }
    }

    /// A length and the bytes.
    private mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
        count(utf8.count)
        guard let start = utf8.baseAddress else { return }
        reserve(utf8.count)
        (base + length).initialize(from: start, count: utf8.count)
        length += utf8.count
    }

    mutating func optional(_ value: String?) {
        byte(value == nil ? 0 : 1)
        if let value { string(value) }
    }

    mutating func optionalInt(_ value: Int?) {
        byte(value == nil ? 0 : 1)
        if let value { count(value) }
    }

    mutating func optionalBool(_ value: Bool?) {
        byte(value.map { $0 ? 2 : 1 } ?? 0)
    }

    mutating func strings(_ values: [String]) {
        count(values.count)
        for value in values { string(value) }
    }

    mutating func texts(_ values: [LocalizedText]) {
        count(values.count)
        for value in values {
            string(value.text)
            optional(value.language)
        }
    }

    mutating func optionalText(_ value: LocalizedText?) {
        byte(value == nil ? 0 : 1)
        if let value {
            string(value.text)
            optional(value.language)
        }
    }

    mutating func icons(_ values: [Icon]) {
        count(values.count)
        for icon in values {
            string(icon.src)
            optionalInt(icon.width)
            optionalInt(icon.height)
        }
    }

    mutating func credits(_ values: [Credit]) {
        count(values.count)
        for credit in values {
            string(credit.role.rawValue)
            string(credit.name)
            optional(credit.character)
            byte(credit.isGuest ? 1 : 0)
            strings(credit.images)
            strings(credit.urls)
        }
    }

    mutating func episodeNumbers(_ values: [EpisodeNumber]) {
        count(values.count)
        for number in values {
            string(number.system)
            string(number.value)
        }
    }

    mutating func ratings(_ values: [Rating]) {
        count(values.count)
        for rating in values {
            optional(rating.system)
            string(rating.value)
            icons(rating.icons)
        }
    }
}

/// Reads what ``BinaryWriter`` wrote; on running out of bytes it returns empty values and marks itself invalid
/// rather than trapping, since the bytes come from a file on disk.
struct BinaryReader {
    /// Borrowed: the reader lives only inside the closure that lends the bytes.
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    private(set) var isValid = true

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { isValid = false; return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func count() -> Int {
        let value = unsigned()
        guard value <= UInt64(bytes.count) * 8 + 1 << 32 else { isValid = false; return 0 }
        return Int(value)
    }

    /// A LEB128 value of up to ten bytes (the tenth gives the top bit), unbounded but by its 64 bits.
    mutating func unsigned() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 64 {
            let next = byte()
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { break }
            shift += 7
        }
        return value
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func string() -> String {
        let length = count()
        guard length <= bytes.count - offset else { isValid = false; return "" }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }

    mutating func optional() -> String? { byte() == 1 ? string() : nil }

    /// Moves past a string without making one.
    mutating func skipString() {
        let length = count()
        guard length <= bytes.count - offset else { isValid = false; return }
        offset += length
    }

    mutating func skipOptional() { if byte() == 1 { skipString() } }

    mutating func skipStrings() { for _ in 0..<items() { skipString() } }

    mutating func skipTexts() { for _ in 0..<items() { skipString(); skipOptional() } }

    mutating func skipOptionalText() { if byte() == 1 { skipString(); skipOptional() } }

    mutating func optionalInt() -> Int? { byte() == 1 ? count() : nil }

    mutating func optionalBool() -> Bool? {
        switch byte() {
        case 2: true
        case 1: false
        default: nil
        }
    }

    /// Bounds a count by the bytes left, so a corrupt count cannot make a loop run for ever.
    mutating func items() -> Int {
        let value = count()
        guard value <= bytes.count - offset else { isValid = false; return 0 }
        return value
    }

    mutating func strings() -> [String] { (0..<items()).map { _ in string() } }

    mutating func texts() -> [LocalizedText] {
        (0..<items()).map { _ in LocalizedText(string(), language: optional()) }
    }

    mutating func optionalText() -> LocalizedText? {
        byte() == 1 ? LocalizedText(string(), language: optional()) : nil
    }

    mutating func credits() -> [Credit] {
        (0..<items()).map { _ in
            let role = Credit.Role(rawValue: string()) ?? .actor
            return Credit(role: role, name: string(), character: optional(), isGuest: byte() == 1, images: strings(),
                          urls: strings())
        }
    }

    mutating func episodeNumbers() -> [EpisodeNumber] {
        (0..<items()).map { _ in EpisodeNumber(system: string(), value: string()) }
    }

    mutating func icons() -> [Icon] {
        (0..<items()).map { _ in Icon(src: string(), width: optionalInt(), height: optionalInt()) }
    }

    mutating func ratings() -> [Rating] {
        (0..<items()).map { _ in Rating(system: optional(), value: string(), icons: icons()) }
    }
}
