import Foundation
import GuideCore

/// An SVG logo as data, never a document: read by a strict XML reader (``StrictXMLReader``: well-formed, namespaces
/// resolved, no declarations) and written out again with only the elements and attributes a drawing needs, in the SVG
/// namespace. What cannot survive: scripts, style sheets, event handlers, animation (`<set>`, `<animate>`: no link can
/// be changed after the check), links (`<a>`: its drawing kept, the link not), foreign objects, images and any
/// reference outside the document (every `href` and `url(...)` must name `#an-id`), elements and attributes in other
/// namespaces (a prefix bound to the SVG namespace is still read as what it is), and any document type with
/// declarations of its own (entities, attribute defaults), which is refused whole. Character references are read, so
/// `&#106;avascript:` is the text it spells, and text is kept only where a drawing shows it (`<text>`, `<tspan>`,
/// `<title>`, `<desc>`), escaped.
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

    /// The drawing written again from what survives; nil when `bytes` is not a well-formed SVG document, or declares
    /// anything of its own in a document type.
    static func clean(_ bytes: [UInt8]) -> [UInt8]? {
        guard let text = String(validating: bytes, as: UTF8.self), let events = StrictXMLReader.events(text) else { return nil }
        var output = ""
        var sawRoot = false
        var skipping = 0
        var open: [String?] = []   // nil: a transparent element, whose end tag is not written
        for event in events {
            switch event {
            case .start(let name, let namespace, let attributes):
                if skipping > 0 || namespace != svgNamespace || !(elements.contains(name) || (sawRoot && transparent.contains(name))) {
                    guard sawRoot else { return nil }  // The root is an SVG element, or this is no SVG.
                    skipping += 1
                } else if transparent.contains(name) {
                    open.append(nil)
                } else {
                    guard sawRoot || name == "svg" else { return nil }
                    var tag = "<" + name
                    if !sawRoot {
                        sawRoot = true
                        tag += " xmlns=\"\(svgNamespace)\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""
                    }
                    for (attribute, value) in attributes.sorted(by: { $0.0 < $1.0 })
                    where Self.attributes.contains(attribute) && isLocal(attribute, value) {
                        tag += " \(attribute == "href" ? "xlink:href" : attribute)=\"\(escaped(value))\""
                    }
                    output += tag + ">"
                    open.append(name)
                }
            case .end:
                if skipping > 0 {
                    skipping -= 1
                } else if let last = open.popLast(), let last {
                    output += "</\(last)>"
                }
            case .text(let text):
                if skipping == 0, let current = open.last ?? nil, textElements.contains(current) { output += escaped(text) }
            }
        }
        return sawRoot ? Array(output.utf8) : nil
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
}
