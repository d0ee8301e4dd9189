import GuideCore

/// Values the builder reads from attributes and text, that need nothing of its state.
extension XMLTVBuilder {
    /// An `<icon>`: its `src`, and its size when given as whole numbers in range.
    func icon(_ attributes: Attributes) -> Icon? {
        var ignored = EntityIssues()
        guard let src = attributes.string("src", issues: &ignored), !src.isEmpty else { return nil }
        return Icon(src: src, width: attributes.string("width", issues: &ignored).flatMap { Bounded.integer($0, in: Icon.sizeRange) },
                    height: attributes.string("height", issues: &ignored).flatMap { Bounded.integer($0, in: Icon.sizeRange) })
    }

    /// XMLTV's `yes` and `no`, in any case; nil for anything else.
    static func yesNo(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "yes": true
        case "no": false
        default: nil
        }
    }
}
