import Foundation
import GuideCore
import GuideIngest

/// How tvguide runs XMLTV grabbers, from the settings' layers: where they are looked for (`grabber-path`, serve's
/// `PATH` when unset) and how long a grab may run (`grabber-minutes`, 30 by default). Each source's grabber gets a
/// home of its own beside the instance's other files (`<database>.grabbers/<source>`).
struct GrabberSettings: Sendable {
    static let minutesRange = 1...1440

    var directories: [String]
    var minutes = 30

    init(_ layers: SettingsLayers) throws {
        let named = layers.strings(.grabberPath)
        for directory in named where !directory.hasPrefix("/") {
            throw CLIFailure(Output.words("grabber-path: {folder} is not an absolute path", ["folder": directory]))
        }
        directories = named.isEmpty ? Grabbers.searchPath() : named
        if let text = layers.string(.grabberMinutes) {
            guard let minutes = Int(text), Self.minutesRange.contains(minutes) else {
                throw CLIFailure(FieldError(name: "grabber-minutes", problem: .wholeNumber(1...1440, got: text)).message(Output.words))
            }
            self.minutes = minutes
        }
    }

    /// The grabbers, each source's home under `localFiles.grabbers`.
    func grabbers(localFiles: String) -> Grabbers {
        Grabbers(directories: directories, home: localFiles + ".grabbers", limits: Grabbers.Limits(grabTime: .seconds(minutes * 60)))
    }
}
