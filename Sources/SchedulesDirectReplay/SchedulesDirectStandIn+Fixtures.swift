import Crypto
import Foundation

/// The stand-in's fixtures (SD's recorded answers) and SD's hashes.
extension SchedulesDirectStandIn {
    static func json(_ fixture: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: fixtures.appendingPathComponent(fixture)))
    }

    static func text(_ object: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The HTTP status manifest.json records for `fixture`, if it records one.
    static func recordedStatus(of fixture: String) throws -> Int? {
        let manifest = try json("manifest.json") as? [String: Any]
        let entry = (manifest?["entries"] as? [[String: Any]])?.first { $0["file"] as? String == fixture }
        return entry?["http_status"] as? Int
    }

    /// SD's password form: lowercase hex SHA-1.
    public static func sha1Hex(_ text: String) -> String {
        Insecure.SHA1.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
