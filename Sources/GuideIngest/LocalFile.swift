import Foundation

/// A file a user named (a file to import, a local source, a playlist), opened for reading; or an error that says what
/// is wrong with the path: nothing there, a folder, or a file this process may not read.
enum LocalFile {
    static func open(_ path: String) throws -> FileHandle {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw IngestError(.notFound, saying: "no file at {file}: check the path", ["file": path])
        }
        // A folder opens, and fails only at its first read ("Is a directory", in Foundation's words).
        guard !isFolder.boolValue else {
            throw IngestError(.unreadable, saying: "{file} is a folder, not a file: check the path", ["file": path])
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IngestError(.unreadable, saying: "cannot read {file}: check its permissions", ["file": path])
        }
        return handle
    }
}
