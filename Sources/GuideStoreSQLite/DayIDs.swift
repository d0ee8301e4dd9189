import GRDB

/// Programme ids that keep each day's programmes together in the table: the UTC day a programme starts on picks a
/// range of ids (the day's number times 2^32 and on), and a new programme takes the next id of its day's range.
///
/// SQLite keeps a table's rows in id order. With ids in the order the rows came, a guide read channel by channel
/// left each channel's week together and each day of it spread through the whole table, so a refresh replacing one
/// changed day of a 1.75 M-programme guide rewrote pages all through it (6.5-8.4 s; with the same rows by day,
/// 5.3-6.5 s: docs/performance.md). By day, the day's old rows are together and so are its new ones.
///
/// Ids stay below 2^52, which JavaScript's numbers hold exactly. Rows stored before (ids from 1 up) are in the
/// range of 1970's first day, whose next id is past them.
struct DayIDs {
    /// Each day's range holds 2^32 ids.
    static let dayShift: Int64 = 32
    /// Days since 1970 with a range of their own, up to the year 4840; starts before or after share the first or last.
    static let days: ClosedRange<Int64> = 0...((1 << 20) - 1)
    /// At most this many days' next ids are remembered (a guide spans weeks); beyond, they are looked up again.
    static let remembered = 4_096

    private var next: [Int64: Int64] = [:]
    private let largest: Statement

    init(_ db: Database) throws {
        largest = try db.makeStatement(sql: "SELECT max(id) FROM programme WHERE id BETWEEN ? AND ?")
    }

    /// The id for a new programme that starts at `start` (seconds since 1970); nil once its day's range is used up,
    /// for SQLite to pick one past every other.
    mutating func id(startingAt start: Int64) throws -> Int64? {
        let day = min(max(start, 0) / 86_400, Self.days.upperBound)
        let first = day << Self.dayShift, last = first + (1 << Self.dayShift) - 1
        let id: Int64
        if let known = next[day] {
            id = known
        } else {
            if next.count >= Self.remembered { next.removeAll(keepingCapacity: true) }
            id = (try Int64.fetchOne(largest, arguments: [first, last]) ?? first) + 1
        }
        guard id <= last else { return nil }
        next[day] = id + 1
        return id
    }
}
