import ArgumentParser
import Foundation

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: Output.words("Check tvguide's configuration file, and show the settings serve would use."),
        subcommands: [Check.self, Show.self]
    )

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("Check a configuration file: every line a known key = value, every value one serve can use."),
            discussion: Output.words("Only the file is checked: environment variables and flags, which override it when tvguide runs, are not read.")
        )

        @Argument(help: .words("The file (default: $TVGUIDE_CONFIG, else /etc/tvguide/tvguide.conf).", valueName: "file"))
        var file: String?

        func run() async throws {
            let path = file ?? ProcessInfo.processInfo.environment["TVGUIDE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
                ?? SettingsLayers.defaultFile
            let layers = try await SettingsLayers.load(flags: [:], file: path, environment: [:])
            _ = try ServeSettings(layers, environment: [:])
            let set = SettingKey.allCases.filter { layers.origin($0) != nil }.map(\.rawValue)
            Output.line(set.isEmpty ? Output.words("{file}: valid; it sets nothing (every setting has its default).", ["file": path])
                                    : Output.words("{file}: valid; it sets {keys}.", ["file": path, "keys": set.joined(separator: ", ")]))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("Show each setting serve would use with these flags, and where it comes from: a flag, the environment, the file, or the default.")
        )

        @OptionGroup var given: ServeOptions

        func run() async throws {
            let layers = try await given.layers()
            let settings = try ServeSettings(layers)
            for key in SettingKey.allCases where !key.isOldName || layers.origin(key) != nil {
                Output.line("\(key.rawValue) = \(settings.written(key))  # \(layers.origin(key) ?? Output.words("default"))")
            }
        }
    }
}
