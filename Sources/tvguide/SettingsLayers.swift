import Configuration
import Foundation
import SystemPackage

/// A setting tvguide reads from its layers: named as the flag (`--day-start`), the configuration file's key
/// (`day-start = 5`) and the environment variable (`TVGUIDE_DAY_START`).
enum SettingKey: String, CaseIterable, Sendable {
    case database, host, port
    case dayStart = "day-start"
    case pretendNow = "pretend-now"
    case trustedProxy = "trusted-proxy"
    case publicURL = "public-url"
    case tvmazeURL = "tvmaze-url"
    case smtp
    case smtpFrom = "smtp-from"
    case smtpCA = "smtp-ca"
    case metrics
    case logFormat = "log-format"
    case offlineDays = "offline-days"
    case insecureCookies = "insecure-cookies"

    /// Whether it takes several values (comma-separated in the file and the environment, repeated as a flag).
    var isList: Bool { self == .trustedProxy }

    /// Its environment variable, as swift-configuration's environment provider names it under the `tvguide` prefix.
    var environmentVariable: String { "TVGUIDE_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_") }
}

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
        let path = named ?? (FileManager.default.fileExists(atPath: defaultFile) ? defaultFile : nil)
        var layers: [(name: String, provider: any ConfigProvider)] = [
            ("flag", InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map { key, value in
                (AbsoluteConfigKey([key.rawValue]), ConfigValue(value, isSecret: false))
            }))),
            // An empty variable is an unset one, as the shell sees it.
            ("environment", EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty }).prefixKeys(with: "tvguide")),
        ]
        if let path { layers.append(("file " + path, try await fileProvider(path))) }
        return SettingsLayers(reader: ConfigReader(providers: layers.map(\.provider)), layers: layers, file: path)
    }

    /// The configuration file at `path` as a provider: a CLIFailure naming the file for one that cannot be read or is
    /// not valid.
    static func fileProvider(_ path: String) async throws -> FileProvider<ConfigurationFile> {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIFailure("The configuration file \(path) does not exist or cannot be read.")
        }
        do {
            return try await FileProvider(parsingOptions: .init(keys: Set(SettingKey.allCases.map(\.rawValue))), filePath: FilePath(path))
        } catch {
            throw CLIFailure("The configuration file \(path) is not valid: \(error)")
        }
    }

    func string(_ key: SettingKey) -> String? {
        reader.string(forKey: ConfigKey(key.rawValue))
    }

    /// Which layer `key`'s value comes from ("flag", "environment", "file PATH"); nil when none has it.
    func origin(_ key: SettingKey) -> String? {
        let type: ConfigType = key.isList ? .stringArray : .string
        let name = layers.first { (try? $0.provider.value(forKey: AbsoluteConfigKey([key.rawValue]), type: type).value) != nil }?.name
        return name == "environment" ? "environment " + key.environmentVariable : name
    }

    func strings(_ key: SettingKey) -> [String] {
        reader.stringArray(forKey: ConfigKey(key.rawValue)) ?? []
    }
}
