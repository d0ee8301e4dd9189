import Foundation
import GuideApplication
import NIOCore

/// Answers HDHomeRun's own discovery for the feeds' tuner ports, as Plex, Channels DVR, Emby and libhdhomerun's tools
/// find tuners: a UDP request to port 65001 (`hdhomerun_config discover`), answered for each listening tuner with its
/// device type, id, tuner count, base URL and lineup URL, at the address of this machine on the way back to the
/// requester. Off unless the admin turns discovery on (`serve --discovery`); who is answered, how often and from which
/// address: ``DiscoveryGate``.
///
/// The packet (libhdhomerun's `hdhomerun_pkt.h`): a type (2 bytes, big-endian: 2 a request, 3 a reply), the payload's
/// length (2 bytes), the payload as tag, length (one byte, or two when 128 or more), value; then a CRC-32 of all before
/// it, little-endian. A request's tags: the device type (4 bytes, FFFFFFFF any) and id (FFFFFFFF any) it looks for.
public final class HDHomeRunDiscovery: Sendable {
    /// The port HDHomeRun devices answer discovery on; clients send nowhere else.
    public static let standardPort = 65001

    enum Tag: UInt8 {
        case deviceType = 0x01, deviceID = 0x02, tunerCount = 0x10, lineupURL = 0x27, baseURL = 0x2A
    }

    static let requestType: UInt16 = 0x0002, replyType: UInt16 = 0x0003
    static let tunerDevice: UInt32 = 1, wildcard: UInt32 = 0xFFFF_FFFF
    /// A request holds its two tags in 20 bytes; one much longer is not a client's.
    static let largestRequest = 1460

    let port: Int
    let tuners: TunerPorts
    let gate: DiscoveryGate

    /// Listening on UDP `port` (``standardPort`` on a network).
    public init(port: Int, tuners: TunerPorts, gate: DiscoveryGate) {
        (self.port, self.tuners, self.gate) = (port, tuners, gate)
    }

    /// Answers until cancelled.
    public func run() async {
        await gate.listen(port: port, name: "HDHomeRun discovery") { [self] datagram, requester in
            answers(to: Array(datagram.readableBytesView), from: requester).map { ByteBuffer(bytes: $0) }
        }
    }

    /// The replies to one datagram from `requester`: one for each listening tuner the request asks for, none unless it
    /// is a well-formed discovery request from a requester reached from the address serve listens on.
    func answers(to datagram: [UInt8], from requester: SocketAddress) -> [[UInt8]] {
        guard let request = Self.request(datagram), request.deviceType == Self.wildcard || request.deviceType == Self.tunerDevice,
              let here = gate.answeringAddress(for: requester) else { return [] }
        let host = DiscoveryGate.urlHost(here)
        return tuners.states().sorted { $0.key < $1.key }.compactMap { feed, tuner -> [UInt8]? in
            let id = HDHomeRunDevice.deviceNumber(feed: feed)
            guard tuner.state == .listening, request.deviceID == Self.wildcard || request.deviceID == id else { return nil }
            let base = "http://\(host):\(tuner.port)"
            return Self.reply(deviceID: id, tunerCount: UInt8(HDHomeRunDevice.tunerCount), base: base, lineup: base + "/lineup.json")
        }
    }

    /// The device type and id a discovery request asks for; nil for anything else (another type, a wrong CRC, a length
    /// past the datagram, a tag's length past the payload). A tag missing is a wildcard, as devices read it.
    static func request(_ packet: [UInt8]) -> (deviceType: UInt32, deviceID: UInt32)? {
        guard (8...largestRequest).contains(packet.count) else { return nil }
        let type = UInt16(packet[0]) << 8 | UInt16(packet[1]), length = Int(packet[2]) << 8 | Int(packet[3])
        guard type == requestType, length == packet.count - 8 else { return nil }
        let sent = packet[(packet.count - 4)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard crc(packet[..<(packet.count - 4)]) == sent else { return nil }
        var found = (deviceType: wildcard, deviceID: wildcard)
        var index = 4
        let end = packet.count - 4
        while index < end {
            let tag = packet[index]
            guard index + 1 < end else { return nil }
            var valueLength = Int(packet[index + 1])
            index += 2
            if valueLength & 0x80 != 0 {
                guard index < end else { return nil }
                valueLength = valueLength & 0x7F | Int(packet[index]) << 7
                index += 1
            }
            guard valueLength <= end - index else { return nil }
            if valueLength == 4, tag == Tag.deviceType.rawValue || tag == Tag.deviceID.rawValue {
                let value = packet[index..<(index + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                if tag == Tag.deviceType.rawValue { found.deviceType = value } else { found.deviceID = value }
            }
            index += valueLength
        }
        return found
    }

    /// A discovery reply: a tuner, its id and tuner count, its base and lineup URLs (each at most 127 bytes: a URL of
    /// this server's address and a port).
    static func reply(deviceID: UInt32, tunerCount: UInt8, base: String, lineup: String) -> [UInt8] {
        var payload: [UInt8] = []
        func item(_ tag: Tag, _ value: [UInt8]) {
            let value = Array(value.prefix(0x7F))
            payload += [tag.rawValue, UInt8(value.count)] + value
        }
        func number(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        item(.deviceType, number(tunerDevice))
        item(.deviceID, number(deviceID))
        item(.tunerCount, [tunerCount])
        item(.baseURL, Array(base.utf8))
        item(.lineupURL, Array(lineup.utf8))
        var packet = [UInt8(replyType >> 8), UInt8(replyType & 0xFF), UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        let check = crc(packet[...])
        packet += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: check >> $0) }
        return packet
    }

    /// Ethernet's CRC-32 (reflected, polynomial EDB88320), as libhdhomerun computes a packet's.
    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
