import Foundation

/// An independent reader of iCalendar for the tests: Python's icalendar (Debian's python3-icalendar, which
/// scripts/test installs), run on a file the test wrote.
public enum ICalendarPeer {
    /// Whether Debian's python3 with icalendar is here.
    public static func isAvailable() async -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        return (try? await python("import icalendar")) != nil
    }

    /// One VEVENT as icalendar read it; times as Python's isoformat.
    public struct Event: Sendable, Equatable {
        public var uid, start, end, summary, description, location: String
        /// The instant each alarm fires for timed events; the trigger otherwise.
        public var alarms: [String]
    }

    /// `text` as icalendar reads it: the calendar's name (`X-WR-CALNAME`, or "") and its events.
    public static func read(_ text: String) async throws -> (name: String, events: [Event]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-ics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // The read's own scratch folder.
        let file = folder.appendingPathComponent("calendar.ics")
        try Data(text.utf8).write(to: file)
        let output = try await python("""
            import datetime, json, sys, icalendar
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            events = []
            for event in calendar.walk('VEVENT'):
                start = event.decoded('DTSTART')
                alarms = []
                for alarm in event.walk('VALARM'):
                    trigger = alarm.decoded('TRIGGER')
                    if isinstance(start, datetime.datetime):
                        alarms.append((start + trigger).isoformat())
                    else:
                        alarms.append(str(trigger))
                events.append({'uid': str(event['UID']), 'start': start.isoformat(), 'end': event.decoded('DTEND').isoformat(),
                               'summary': str(event['SUMMARY']), 'description': str(event.get('DESCRIPTION', '')),
                               'location': str(event.get('LOCATION', '')), 'alarms': alarms})
            print(json.dumps({'name': str(calendar.get('X-WR-CALNAME', '')), 'events': events}))
            """, file.path)
        let parsed = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        let events = (parsed?["events"] as? [[String: Any]] ?? []).map { event in
            let field = { (name: String) in event[name] as? String ?? "" }
            return Event(uid: field("uid"), start: field("start"), end: field("end"), summary: field("summary"),
                         description: field("description"), location: field("location"), alarms: event["alarms"] as? [String] ?? [])
        }
        return (parsed?["name"] as? String ?? "", events)
    }

    /// Runs `script` with Debian's python3; its standard output, or an error with its standard error.
    static func python(_ script: String, _ arguments: String...) async throws -> String {
        let run = try await Program.run("/usr/bin/python3", arguments: ["-c", script] + arguments)
        guard run.status == 0 else { throw PythonFailed(message: run.errorText) }
        return run.outputText
    }

    public struct PythonFailed: Error { public var message: String }
}
