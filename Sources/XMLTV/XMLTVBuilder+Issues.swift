import GuideCore

extension XMLTVBuilder {
    /// What a document that ends now ends inside, if anything.
    var openElementEnding: Sentence? {
        guard let frame = stack.last else { return nil }
        guard programme == nil else { return Sentence(saying: "the file ends inside a <programme> starting on line {line}; it looks cut short",
                                                      ["line": String(programmeLine)]) }
        return frame.name == .other ? Sentence(saying: "the file ends inside an open element; it looks cut short")
                                    : Sentence(saying: "the file ends inside <{element}>; it looks cut short", ["element": "\(frame.name)"])
    }

    /// Records what reading the texts counted (``entityIssues``) in ``issues``, and starts counting again.
    mutating func flushEntityIssues() {
        if entityIssues.invalidUTF8 > 0 {
            issues.record(ListingIssue(kind: .invalidEncoding,
                                       message: Sentence(saying: "{count} text held bytes that are not UTF-8; they were replaced with U+FFFD (check the file's declared encoding)",
                                                         plural: "{count} texts held bytes that are not UTF-8; they were replaced with U+FFFD (check the file's declared encoding)",
                                                         count: entityIssues.invalidUTF8)))
            issues.record(.invalidEncoding, count: entityIssues.invalidUTF8 - 1)
        }
        guard entityIssues.unknownCount > 0 else { return }
        issues.record(ListingIssue(kind: .unknownEntity,
                                   message: Sentence(saying: "{count} unknown entity reference, {entity}, was kept as written",
                                                     plural: "{count} unknown entity references such as {entity} were kept as written",
                                                     count: entityIssues.unknownCount, ["entity": entityIssues.firstUnknown ?? "?"])))
        issues.record(.unknownEntity, count: entityIssues.unknownCount - 1)
        entityIssues = EntityIssues()
    }
}
