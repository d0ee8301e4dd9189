import Foundation

/// xmltv-util's `tv_validate_file`: the XMLTV project's own check of a file against xmltv.dtd, for tests of what
/// tvguide writes.
public enum XMLTVValidator {
    static let path = "/usr/bin/tv_validate_file"

    /// Whether xmltv-util is installed (`scripts/test` installs it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The XMLTV tests' copy of xmltv.dtd (the validator fetches it from the network otherwise).
    public static let dtdFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/XMLTVTests/Fixtures").path

    /// The validator's exit status and everything it said about the file at `file`, read against the xmltv.dtd in
    /// `dtdFolder`.
    public static func validate(_ file: String, dtdFolder: String = dtdFolder) async throws -> (status: Int32, output: String) {
        let run = try await Program.run(path, arguments: [file],
                                        environment: ["XMLTV_SUPPLEMENT": dtdFolder, "PATH": "/usr/bin:/bin"])
        return (run.status, run.outputText + run.errorText)
    }

    /// What the validator found wrong with `xml` (written to a scratch file): every line it printed but its
    /// "Validated ok", so an empty list is a file it accepted whole. Gzip (`compressed`) is unpacked first by gzip, not by
    /// tvguide's own code.
    public static func complaints(about xml: Data, compressed: Bool = false) async throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // Test scratch folder.
        var file = folder.appendingPathComponent(compressed ? "guide.xml.gz" : "guide.xml")
        try xml.write(to: file)
        if compressed {
            let unpacked = try await Program.run("/bin/gzip", arguments: ["-d", file.path], environment: ["PATH": "/usr/bin:/bin"])
            guard unpacked.status == 0 else { return ["gzip: " + unpacked.errorText] }
            file = folder.appendingPathComponent("guide.xml")
        }
        let (status, output) = try await validate(file.path)
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let said = lines.filter { !$0.hasPrefix("Validated ok") }
        return status == 0 || !said.isEmpty ? said : ["tv_validate_file ended with status \(status)"]
    }
}
