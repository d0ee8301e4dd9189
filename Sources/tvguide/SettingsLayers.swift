import Configuration
import Foundation
import SystemPackage

/// tvguide's settings, layered by swift-configuration, the first layer that has a key winning: command-line flags,
/// then environment variables (`TVGUIDE_PORT`), then the configuration file (`--config`, else `$TVGUIDE_CONFIG`,
/// else `/etc/tvguide/tvguide.conf` when it exists), then each setting's default.
///
/// Every value is read as text and parsed by the setting's own rule (`ServeSettings`), so a value that does not parse is
/// an error naming the setting rather than a default quietly used.
struct SettingsLayers: Sendable {
    static let defaultFile = "/etc/tvguide/tvguide.conf"

    let reader: ConfigReader
    /// The layers, first to last, with their names for people.
    private let layers: [(name: String, provider: any ConfigProvider)]
    /// The configuration file read, if any.
    let file: String?

    /// The layers over `flags` (the settings given on the command line).
    static func load(flags: [SettingKey: ConfigContent], file explicit: String?,
                     environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> SettingsLayers {
        let named = explicit ?? environment["TVGUIDE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        // "none" reads no file, not even the default one.
        let path = named == "none" ? nil : named ?? (FileManager.default.fileExists(atPath: defaultFile) ? defaultFile : nil)
        var layers: [(name: String, provider: any ConfigProvider)] = [
            ("flag", InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map { key, value in
                (AbsoluteConfigKey([key.rawValue]), ConfigValue(value, isSecret: false))
            }))),
            // An empty variable is an unset one, as the shell sees it.
            ("environment", EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty }).prefixKeys(with: "tvguide")),
        ]
        if let path { layers.append(("file", try await fileProvider(path))) }
        return SettingsLayers(reader: ConfigReader(providers: layers.map(\.provider)), layers: layers, file: path)
    }

    /// The configuration file at `path` as a provider: a CLIFailure naming the file for one that cannot be read or is
    /// not valid.
    static func fileProvider(_ path: String) async throws -> FileProvider<ConfigurationFile> {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIFailure(Output.words("The configuration file {file} does not exist or cannot be read.", ["file": path]))
        }
        do {
            return try await FileProvider(parsingOptions: .init(keys: Set(SettingKey.allCases.map(\.rawValue))), filePath: FilePath(path))
        } catch {
            throw CLIFailure(Output.words("The configuration file {file} is not valid: {error}", ["file": path, "error": "\(error)"]))
        }
    }

    func string(_ key: SettingKey) -> String? {
        reader.string(forKey: ConfigKey(key.rawValue))
    }

    /// Which layer `key`'s value comes from, in the terminal's words ("flag", "environment TVGUIDE_PORT", "file PATH"); nil
    /// when none has it (the default).
    func origin(_ key: SettingKey) -> String? {
        let type: ConfigType = key.isList ? .stringArray : .string
        // A layer that cannot give the key as text has no value for it.
        let name = layers.first { (try? $0.provider.value(forKey: AbsoluteConfigKey([key.rawValue]), type: type).value) != nil }?.name
        return switch name {
        case nil: nil
        case "flag": Output.words("flag")
        case "environment": Output.words("environment {variable}", ["variable": key.environmentVariable])
        default: Output.words("file {path}", ["path": file ?? ""])
        }
    }

    func strings(_ key: SettingKey) -> [String] {
        reader.stringArray(forKey: ConfigKey(key.rawValue)) ?? []
    }
}
