import Foundation

/// Scratch folders for tests, all inside one folder of the test process's own, removed when the process exits.
///
/// A test's database stays open until the test is done with it, and a pool may open another connection to it at any
/// time before then, so a test cannot safely remove its own folder early; left to themselves, the folders gathered in
/// the temporary directory (4.5 GB of them on one developer's machine). Folders left by a run that crashed are removed
/// by the next run.
public enum TestScratch {
    /// A new, empty folder whose name starts with `prefix`.
    public static func folder(_ prefix: String) -> String {
        let folder = root + "/" + prefix + "-" + UUID().uuidString
        // A failure shows as the test's own.
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// This process's folder, made (and set to go at exit) on first use.
    private static let root: String = {
        removeAbandoned(in: FileManager.default.temporaryDirectory.path)
        let root = ownRoot
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)  // As above.
        atexit { try? FileManager.default.removeItem(atPath: TestScratch.ownRoot) }  // Scratch.
        return root
    }()

    static let rootPrefix = "tvguide-tests-"

    /// The process's folder, as the exit handler (which captures nothing) finds it.
    private static var ownRoot: String {
        FileManager.default.temporaryDirectory.path + "/" + rootPrefix + String(getpid())
    }

    /// Removes the folders of test processes that no longer run. A name's number is a process id only from 1 up:
    /// `kill` takes 0 and -1 as every process of the group, or of the machine.
    static func removeAbandoned(in temporary: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []  // None to remove.
        for name in names where name.hasPrefix(rootPrefix) {
            guard let pid = Int32(name.dropFirst(rootPrefix.count)), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: temporary + "/" + name)  // Scratch of a run that is gone.
        }
    }
}
