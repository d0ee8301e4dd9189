import Foundation
import GuideStore
import XMLTV

/// The trigram postings an import's writing thread gathers (``TrigramPostings``), alone: the distinct folded titles
/// and bodies of the guide at `path`, in the order an import meets them, each added with the next id and every run
/// drained at the end, as a first import does. Best of three; the texts, their bytes, the runs' bytes and the seconds.
func postingsBench(path: String) throws -> [(label: String, texts: Int, bytes: Int, runs: Int, seconds: Double)] {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var folding = TextFolding()
    var titles: [String] = [], bodies: [String] = []
    var seenTitles = Set<String>(), seenBodies = Set<String>()
    _ = try parseSeconds(bytes) {
        (nil, { item in
            guard case .programme(let programme, let line) = item else { return }
            let prepared = PreparedProgramme(programme, line: line, folding: &folding)
            if seenTitles.insert(prepared.foldedTitle).inserted { titles.append(prepared.foldedTitle) }
            if !prepared.foldedBody.isEmpty, seenBodies.insert(prepared.foldedBody).inserted {
                bodies.append(prepared.foldedBody)
            }
        })
    }
    return [("titles", titles), ("bodies", bodies)].map { label, texts in
        var best = Double.infinity, runs = 0
        for _ in 0..<3 {
            var postings = TrigramPostings()
            runs = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for (index, text) in texts.enumerated() {
                postings.add(text, id: Int64(index + 1))
                if postings.needsWrite { postings.drain { _, run in runs &+= run.count } }
            }
            postings.drain { _, run in runs &+= run.count }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return (label, texts.count, texts.reduce(0) { $0 + $1.utf8.count }, runs, best)
    }
}
