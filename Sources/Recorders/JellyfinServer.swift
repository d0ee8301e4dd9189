import Foundation
import GuideCore
import GuideHTTP

/// Jellyfin (or Emby) through its HTTP API with an API key (Dashboard > API Keys): the one client of it, which its
/// recorder (``JellyfinRecorder``) and media-server reloads both use. Each call is a ``RecorderCall``; the key goes as
/// Jellyfin takes it (`Authorization: MediaBrowser Token="..."`, with the client's name), or Emby's `X-Emby-Token`.
public struct JellyfinServer: Sendable {
    public enum Kind: String, Sendable { case jellyfin, emby }

    let call: RecorderCall

    public init(address: String, key: String, kind: Kind = .jellyfin, transport: any HTTPTransport) {
        let header = kind == .jellyfin
            ? ("Authorization", "MediaBrowser Client=\"tvguide\", Device=\"tvguide\", DeviceId=\"tvguide\", Version=\"\(TVGuideVersion.number)\", Token=\"\(key)\"")
            : ("X-Emby-Token", key)
        call = RecorderCall(transport: transport, base: address.hasSuffix("/") ? String(address.dropLast()) : address,
                            credentials: nil, headers: [header], kind: kind == .jellyfin ? "Jellyfin" : "Emby")
    }

    /// What the server is called in messages: "Jellyfin" or "Emby".
    public var name: String { call.kind }

    /// Starts the server's Refresh Guide task, so it reads its guide again: `GET /ScheduledTasks` finds the task whose
    /// `Key` is `RefreshGuide`, and `POST /ScheduledTasks/Running/{Id}` starts it.
    public func refreshGuide() async throws(RecorderError) {
        let tasks = try await call.decode([ScheduledTask].self, "GET", "/ScheduledTasks?isHidden=false")
        guard let task = tasks.first(where: { $0.key == "RefreshGuide" }),
              !task.id.isEmpty, task.id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw RecorderError(.refused, saying: "{recorder} has no Refresh Guide task: is Live TV set up?", ["recorder": name])
        }
        _ = try await call.send("POST", "/ScheduledTasks/Running/" + task.id)
    }

    struct ScheduledTask: Decodable {
        var id: String
        var key: String?
        enum CodingKeys: String, CodingKey { case id = "Id", key = "Key" }
    }
}
