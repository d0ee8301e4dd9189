import Foundation
import GuideApplication
import Logging
import NIOCore

/// Answers SSDP searches on the local network for the feeds' tuner ports (``TunerPorts``), as HDHomeRun devices
/// answer them: an `M-SEARCH` to 239.255.255.250:1900 for `ssdp:all`, `upnp:rootdevice`, a MediaServer device or a
/// tuner's own `uuid:` gets, for each listening tuner, a `200 OK` whose `LOCATION` is its `device.xml` at the address of
/// this machine on the way back to the searcher. Off unless the admin turns discovery on (`serve --discovery`).
/// Who is answered, how often and from which address: ``DiscoveryGate``.
public final class SSDPResponder: Sendable {
    static let group = "239.255.255.250"
    /// The search targets a tuner answers, besides its own `uuid:`.
    static let targets: Set<String> = ["ssdp:all", "upnp:rootdevice", "urn:schemas-upnp-org:device:MediaServer:1"]

    let port: Int
    let tuners: TunerPorts
    let gate: DiscoveryGate

    /// Listening on UDP `port` (1900 on a network; tests take another).
    public init(port: Int, tuners: TunerPorts, gate: DiscoveryGate) {
        (self.port, self.tuners, self.gate) = (port, tuners, gate)
    }

    /// Answers until cancelled.
    public func run() async {
        await gate.listen(port: port, joining: Self.group, name: "SSDP") { [self] datagram, searcher in
            answers(to: String(buffer: datagram), from: searcher).map { ByteBuffer(string: $0) }
        }
    }

    /// The answers to one datagram from `searcher`: none unless it is a search this responder answers, from a searcher
    /// reached from the address serve listens on.
    func answers(to datagram: String, from searcher: SocketAddress) -> [String] {
        guard let target = Self.searchTarget(datagram), let here = gate.answeringAddress(for: searcher) else { return [] }
        let host = DiscoveryGate.urlHost(here)
        return tuners.states().compactMap { feed, tuner -> String? in
            guard tuner.state == .listening else { return nil }
            let udn = HDHomeRunDevice.udn(feed: feed)
            guard Self.targets.contains(target) || target == udn else { return nil }
            let type = target == "ssdp:all" ? "urn:schemas-upnp-org:device:MediaServer:1" : target
            return [
                "HTTP/1.1 200 OK",
                "CACHE-CONTROL: max-age=1800",
                "EXT:",
                "LOCATION: http://\(host):\(tuner.port)/device.xml",
                "SERVER: Linux UPnP/1.0 tvguide/1",
                "ST: \(type)",
                "USN: " + (type == udn ? udn : "\(udn)::\(type)"),
                "", "",
            ].joined(separator: "\r\n")
        }
    }

    /// The `ST` of an `M-SEARCH` with `MAN: "ssdp:discover"`, else nil.
    static func searchTarget(_ datagram: String) -> String? {
        let lines = datagram.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
        guard lines.first?.uppercased().hasPrefix("M-SEARCH * HTTP/1.1") == true else { return nil }
        var fields: [String: String] = [:]
        for line in lines.dropFirst().prefix(30) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].trimmingCharacters(in: .whitespaces).uppercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["MAN"]?.replacingOccurrences(of: "\"", with: "").lowercased() == "ssdp:discover", let target = fields["ST"],
              !target.isEmpty, target.utf8.count <= 200 else { return nil }
        return target
    }
}
