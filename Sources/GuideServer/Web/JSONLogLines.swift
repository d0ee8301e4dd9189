import Foundation
import GuideCore
import Logging
import Synchronization

/// `serve --log-format json`: each log entry as one JSON object on a line of standard error, for log collectors:
/// `time` (ISO 8601, UTC, milliseconds), `level`, `label`, `message`, the request's id as `request` where there is
/// one, and every other metadata value as a string.
public struct JSONLogLines: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String
    let write: @Sendable (String) -> Void
    /// When an entry was made: the machine's time (a log is read beside other programs' logs, so not the guide's
    /// pretended time).
    let now: @Sendable () -> Date

    public init(label: String, now: @escaping @Sendable () -> Date, write: @escaping @Sendable (String) -> Void = JSONLogLines.standardError) {
        self.label = label
        self.now = now
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            fields[key == "hb.request.id" ? "request" : key] = "\(value)"
        }
        fields["time"] = Self.time(now())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// One line at a time on standard error, whole.
    public static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let lock = Mutex(())

    static func time(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var text = CivilTime.iso8601(Date(timeIntervalSince1970: Double(milliseconds / 1000)))
        text.removeLast()  // "Z"
        return text + String(format: ".%03dZ", Int(milliseconds % 1000))
    }
}
