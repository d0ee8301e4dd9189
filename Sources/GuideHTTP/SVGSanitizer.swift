import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG logo as data, never a document: read by a real XML parser (libxml2, through Foundation's `XMLParser`) and
/// written out again with only the elements and attributes a drawing needs, in the SVG namespace. What cannot survive:
/// scripts, styles sheets, event handlers, animation (`<set>`, `<animate>`: no link can be changed after the check),
/// links (`<a>`), foreign objects, images and any reference outside the document (every `href` and `url(...)` must
/// name `#an-id`), elements and attributes in other namespaces (a prefix bound to the SVG namespace is still read as
/// what it is), and any document type with declarations of its own (entities, attribute defaults), which is refused
/// whole. Character references are read by the parser, so `&#106;avascript:` is the text it spells, and text is kept
/// only where a drawing shows it (`<text>`, `<tspan>`, `<title>`, `<desc>`), escaped.
enum SVGSanitizer {
    static let svgNamespace = "http://www.w3.org/2000/svg"

    static let elements: Set<String> = [
        "svg", "g", "defs", "symbol", "use", "title", "desc", "path", "rect", "circle", "ellipse", "line", "polyline",
        "polygon", "text", "tspan", "linearGradient", "radialGradient", "stop", "clipPath", "mask", "pattern", "filter",
        "feGaussianBlur", "feOffset", "feBlend", "feColorMatrix", "feFlood", "feComposite", "feMerge", "feMergeNode",
        "feMorphology", "feDropShadow",
    ]

    static let attributes: Set<String> = [
        "id", "class", "x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "x1", "y1", "x2", "y2", "d", "points",
        "viewBox", "preserveAspectRatio", "transform", "version", "baseProfile", "fill", "fill-opacity", "fill-rule",
        "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray",
        "stroke-dashoffset", "stroke-opacity", "opacity", "color", "display", "visibility", "overflow", "clip-path",
        "clip-rule", "mask", "font-family", "font-size", "font-weight", "font-style", "font-variant", "text-anchor",
        "dominant-baseline", "alignment-baseline", "baseline-shift", "letter-spacing", "word-spacing", "text-decoration",
        "writing-mode", "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform", "spreadMethod", "fx",
        "fy", "fr", "patternUnits", "patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits",
        "maskContentUnits", "filter", "filterUnits", "primitiveUnits", "in", "in2", "result", "stdDeviation", "dx", "dy",
        "mode", "operator", "k1", "k2", "k3", "k4", "values", "type", "flood-color", "flood-opacity", "radius", "style",
        "paint-order", "vector-effect", "shape-rendering", "color-interpolation-filters", "mix-blend-mode", "isolation",
        "xml:space", "href", "xlink:href",
    ]

    /// Elements left out but not what is in them: a link's drawing is kept without the link.
    static let transparent: Set<String> = ["a", "switch"]

    /// Elements whose text a drawing shows.
    static let textElements: Set<String> = ["text", "tspan", "title", "desc"]

    /// The drawing written again from what survives; nil when `bytes` is not an SVG document, or declares anything of
    /// its own in a document type.
    static func clean(_ bytes: [UInt8]) -> [UInt8]? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let lowered = text.lowercased()
        // Declarations are refused before any parser could expand or apply them.
        for declaration in ["<!entity", "<!attlist", "<!element", "<!notation"] where lowered.contains(declaration) { return nil }
        guard lowered.contains("<svg") || lowered.contains(":svg") else { return nil }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let writer = Writer()
        parser.delegate = writer
        guard parser.parse(), !writer.refused, writer.sawRoot, writer.skipping == 0, writer.open.isEmpty else { return nil }
        return Array(writer.output.utf8)
    }

    /// Whether an attribute's value reaches outside the document: every `url(...)` names `#an-id`; a style has no
    /// escapes, at-rules or expressions that could hide one.
    static func isLocal(_ name: String, _ value: String) -> Bool {
        let folded = value.lowercased().filter { !$0.isWhitespace }
        if name == "href" || name.hasSuffix(":href") { return value.hasPrefix("#") }
        if name == "style" {
            for banned in ["\\", "@", "expression", "javascript:", "behavior", "-moz-binding", "/*"] where folded.contains(banned) { return false }
        }
        var rest = Substring(folded)
        while let open = rest.range(of: "url(") {
            guard rest[open.upperBound...].hasPrefix("#") || rest[open.upperBound...].hasPrefix("'#")
                    || rest[open.upperBound...].hasPrefix("\"#") else { return false }
            rest = rest[open.upperBound...]
        }
        return !folded.contains("javascript:") && !folded.contains("data:")
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    private final class Writer: NSObject, XMLParserDelegate {
        var output = ""
        var sawRoot = false
        var refused = false
        /// Depth inside an element that is dropped with everything in it.
        var skipping = 0
        /// The kept elements open now (nil for a transparent one, whose end tag is not written).
        var open: [String?] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if skipping == 0, sawRoot, namespaceURI == SVGSanitizer.svgNamespace, SVGSanitizer.transparent.contains(elementName) {
                open.append(nil)
                return
            }
            guard skipping == 0, namespaceURI == SVGSanitizer.svgNamespace, SVGSanitizer.elements.contains(elementName),
                  sawRoot || elementName == "svg" else {
                if !sawRoot { refused = true }
                skipping += 1
                return
            }
            var tag = "<" + elementName
            if !sawRoot {
                sawRoot = true
                tag += " xmlns=\"\(SVGSanitizer.svgNamespace)\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""
            }
            for (name, value) in attributes.sorted(by: { $0.key < $1.key })
            where SVGSanitizer.attributes.contains(name) && SVGSanitizer.isLocal(name, value) {
                let written = name == "href" ? "xlink:href" : name
                tag += " \(written)=\"\(SVGSanitizer.escaped(value))\""
            }
            output += tag + ">"
            open.append(elementName)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if skipping > 0 {
                skipping -= 1
                return
            }
            guard let last = open.popLast() else { return }
            if let last { output += "</\(last)>" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipping == 0, let current = open.last ?? nil, SVGSanitizer.textElements.contains(current) else { return }
            output += SVGSanitizer.escaped(string)
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) { refuse(parser) }
        func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) { refuse(parser) }
        func parser(_ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
                    type: String?, defaultValue: String?) { refuse(parser) }
        func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) { refuse(parser) }
        func parser(_ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?, systemID: String?,
                    notationName: String?) { refuse(parser) }

        private func refuse(_ parser: XMLParser) {
            refused = true
            parser.abortParsing()
        }
    }
}
