import Foundation

/// The first run's setup code in a file of its own (`setup-code-file`): made anew each start, readable and writable by
/// serve's user only (0600), never through a link; removed once a profile exists.
enum SetupCodeFile {
    static func write(_ code: String, to path: String) throws {
        remove(path)
        let file = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw CLIFailure(Output.words("setup-code-file: cannot make {file}: {error}", ["file": path, "error": String(cString: strerror(errno))])) }
        defer { close(file) }
        fchmod(file, 0o600)  // Whatever the umask.
        let line = Array((code + "\n").utf8)
        guard line.withUnsafeBytes({ Foundation.write(file, $0.baseAddress, $0.count) }) == line.count else {
            throw CLIFailure(Output.words("setup-code-file: cannot write {file}: {error}", ["file": path, "error": String(cString: strerror(errno))]))
        }
    }

    /// Removes the file, or the link by its name (not what a link leads to); gone already is as good.
    static func remove(_ path: String) {
        unlink(path)
    }
}
