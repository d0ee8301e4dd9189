import Foundation

/// xmltv-util's `tv_validate_file`: the XMLTV project's own check of a file against xmltv.dtd, for tests of what
/// tvguide writes.
public enum XMLTVValidator {
    static let path = "/usr/bin/tv_validate_file"

    /// Whether xmltv-util is installed (`scripts/test` installs it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The validator's exit status and everything it said about the file at `file`, read against the xmltv.dtd in
    /// `dtdFolder` (it fetches the DTD from the network otherwise).
    public static func validate(_ file: String, dtdFolder: String) async throws -> (status: Int32, output: String) {
        let run = try await Program.run(path, arguments: [file],
                                        environment: ["XMLTV_SUPPLEMENT": dtdFolder, "PATH": "/usr/bin:/bin"])
        return (run.status, run.outputText + run.errorText)
    }
}
