/// The ids of the titles an import has found or added, by the folding that made each programme's title
/// (``PreparedProgramme/titleSerial``) and by the folded text itself, at most ``TextCache/limit`` of each.
///
/// A programme's folded title is one string the reading thread keeps and hands to every programme of that title; a
/// store that looked each one up by its text counted a reference to it on the writing thread, so the two threads
/// took turns with the string's count (a popular title's, on every channel) and the reading thread's own counting
/// cost more beside the import than alone. By its serial, a known title's id is found without reading the text.
package struct KnownTitles {
    private var bySerial: [Int: Int64] = [:]
    private var byText: [UTF8Key: Int64] = [:]
    /// Whether every stored title is known by its text: the table held none as the import began, and none has been
    /// forgotten since. A title not known is then new, added without being looked for.
    package private(set) var holdsEveryTitle: Bool

    package init(holdsEveryTitle: Bool) {
        self.holdsEveryTitle = holdsEveryTitle
    }

    /// The id of `programme`'s title, if known: by its serial, or else by its text (and then by its serial too).
    package mutating func id(of programme: PreparedProgramme) -> Int64? {
        if let id = bySerial[programme.titleSerial] { return id }
        guard let id = byText[UTF8Key(programme.foldedTitle)] else { return nil }
        rememberSerial(id, of: programme)
        return id
    }

    /// Remembers the id of `programme`'s title, found or added. Past ``TextCache/limit`` texts all are forgotten
    /// (and with them the knowledge that a title not known is new); past as many serials, the serials (a title
    /// forgotten by the reader and folded again has another).
    package mutating func remember(_ id: Int64, for programme: PreparedProgramme) {
        if bySerial[programme.titleSerial] == id { return }
        if byText.count >= TextCache.limit {
            byText.removeAll(keepingCapacity: true)
            holdsEveryTitle = false
        }
        byText[UTF8Key(programme.foldedTitle)] = id
        rememberSerial(id, of: programme)
    }

    private mutating func rememberSerial(_ id: Int64, of programme: PreparedProgramme) {
        if bySerial.count >= TextCache.limit { bySerial.removeAll(keepingCapacity: true) }
        bySerial[programme.titleSerial] = id
    }
}
