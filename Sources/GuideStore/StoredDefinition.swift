import Foundation
import GuideCore

/// A configured source's definition as every store keeps it: JSON with sorted keys, read back leniently (a definition
/// written by a newer tvguide that this one cannot read is left out, not an error).
package enum StoredDefinition {
    package static func json(_ definition: SourceDefinition) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(definition), as: UTF8.self)
    }

    package static func definition(_ text: String?) -> SourceDefinition? {
        text.flatMap { try? JSONDecoder().decode(SourceDefinition.self, from: Data($0.utf8)) }
    }
}
