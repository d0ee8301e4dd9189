import Foundation

/// The real tracker exports in the tracker tests' fixtures (Tests/TrackerExportsTests/Fixtures/trackers), as the
/// end-to-end import tests use them: a folder zipped as the tracker sends it, by Python's zipfile, and the independent
/// count of what each holds (count_history.py, Python's csv and json and nothing of tvguide's).
public enum TrackerSamples {
    public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/TrackerExportsTests/Fixtures")

    /// Shows named and watched episodes (one per show, season and number).
    public struct Count: Sendable, Equatable {
        public var shows: Int
        public var episodes: Int

        public init(shows: Int, episodes: Int) {
            (self.shows, self.episodes) = (shows, episodes)
        }
    }

    /// Every file of `folder` (under trackers/), zipped (deflated) at its top level.
    public static func zip(_ folder: String) async throws -> [UInt8] {
        let script = """
            import io, os, sys, zipfile
            folder = sys.argv[1]
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
                for name in sorted(os.listdir(folder)):
                    archive.write(os.path.join(folder, name), name)
            sys.stdout.buffer.write(out.getvalue())
            """
        let path = fixtures.appendingPathComponent("trackers").appendingPathComponent(folder).path
        let run = try await Program.run("/usr/bin/python3", arguments: ["-c", script, path], environment: ["PATH": "/usr/bin:/bin"])
        guard run.status == 0 else { throw SampleFailure(said: run.errorText) }
        return run.output
    }

    /// count_history.py's reading of every sample, by its name there ("trakt-zip", "tvtime-csv-unwatched").
    public static func counts() async throws -> [String: Count] {
        let script = fixtures.appendingPathComponent("count_history.py").path
        let run = try await Program.run("/usr/bin/python3", arguments: [script], environment: ["PATH": "/usr/bin:/bin"])
        guard run.status == 0, let object = try JSONSerialization.jsonObject(with: Data(run.output)) as? [String: [String: Int]] else {
            throw SampleFailure(said: run.errorText)
        }
        return object.mapValues { Count(shows: $0["shows"] ?? 0, episodes: $0["episodes"] ?? 0) }
    }

    struct SampleFailure: Error {
        let said: String
    }
}
