import Foundation
import GuideCore
import XMLTV

/// Loads the fixtures copied into the test bundle.
enum Fixture {
    static let root: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(path)))
    }

    static func files(in folder: String, ending suffix: String = ".xml") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url(folder).path)
            .filter { $0.hasSuffix(suffix) }.sorted().map { "\(folder)/\($0)" }
    }

    static func read(_ path: String) throws -> (channels: [Channel], programmes: [Programme], issues: IssueLog) {
        try XMLTVReader.read(bytes(path))
    }

    static func date(_ text: String) -> Date {
        XMLTVTimestamp.date(text)!
    }
}
