import GuideCore

/// Appends length-prefixed values to a byte array.
struct BinaryWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(512) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// LEB128, so small counts and lengths take one byte.
    mutating func count(_ value: Int) {
        unsigned(UInt64(max(0, value)))
    }

    /// LEB128 of any 64-bit value.
    mutating func unsigned(_ value: UInt64) {
        if value < 0x80 { return bytes.append(UInt8(value)) }   // Most: counts and lengths.
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    mutating func string(_ value: String) {
        // In place: a copy to read it by `withUTF8` cost a reference count each way, for each text of each programme.
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
        if written == nil {
            var copy = value
            copy.withUTF8 { utf8 in
                count(utf8.count)
                bytes.append(contentsOf: utf8)
            }
        }
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
