import GuideCore
import XMLTV

/// The grid's rows as HTML: the one place a row's markup is written. The page's first rows, the rows the grid's
/// script asks `/grid/rows` for and the offline copy's rows are all this markup; the script only places what it is
/// given. Written directly: through Mustache's reflection 60 rows of a busy day (2,000 cells) took ~300 ms, this takes
/// a few.
enum GridRowsHTML {
    /// A row as the script receives it: its place, its channel and its markup.
    struct Rendered: Encodable, Sendable {
        var index: Int
        var id: String
        var html: String
    }

    /// - Parameters:
    ///   - genre: when set, programmes of other genres are dimmed (`?genre=`).
    ///   - noListings: what a row without programmes says, in the viewer's words.
    static func render(_ rows: [GridRow], genre: Genre? = nil, noListings: String) -> String {
        var html = ""
        html.reserveCapacity(rows.count * 8 * 1024)
        for row in rows {
            append(row, genre: genre, noListings: noListings, to: &html)
            html += "\n"
        }
        return html
    }

    /// Each of `rows` on its own, for the script.
    static func rendered(_ rows: [GridRow], genre: Genre? = nil, noListings: String) -> [Rendered] {
        rows.map { row in
            var html = ""
            html.reserveCapacity(row.cells.count * 320 + 512)
            append(row, genre: genre, noListings: noListings, to: &html)
            return Rendered(index: row.index, id: row.id, html: html)
        }
    }

    private static func append(_ row: GridRow, genre: Genre?, noListings: String, to html: inout String) {
        html += #"<div class="row" role="row" aria-rowindex="\#(row.ariaIndex)" id="row-\#(row.index)" data-index="\#(row.index)" data-channel="\#(escape(row.id))">"#
        html += #"<div class="ch" role="rowheader">"#
        if let logo = row.logo { html += #"<img src="\#(escape(logo))" alt="" loading="lazy" referrerpolicy="no-referrer">"# }
        html += #"<span class="num">\#(escape(row.number ?? ""))</span><span class="name" dir="auto">\#(escape(row.name))</span></div>"#
        html += #"<div class="track" role="presentation">"#
        for cell in row.cells {
            let span = cell.span
            html += #"<a role="gridcell" tabindex="-1" class="p g-\#(cell.genre) o\#(span.offsetMinutes) d\#(span.lengthMinutes)"#
            if span.isClippedAtStart { html += " clip-start" }
            if span.isClippedAtEnd { html += " clip-end" }
            if cell.isFollowed { html += " followed" }
            if cell.isRecording { html += " rec" }
            if let genre, cell.genre != genre.rawValue { html += " dim" }
            html += #"" href="\#(SitePath.programme(ProgrammeID(rawValue: cell.id)))" data-start="\#(span.startSecond)" data-end="\#(span.endSecond)"><span class="t" dir="auto">\#(escape(cell.title))</span><span class="tm">\#(cell.time)</span></a>"#
        }
        if row.cells.isEmpty { html += #"<span class="no-listings" role="gridcell">\#(escape(noListings))</span>"# }
        html += "</div></div>"
    }

    /// Text and double-quoted attribute values made safe for HTML: the same rule as XMLTV's.
    static func escape(_ text: String) -> String {
        XMLTVWriter.escape(text)
    }
}
