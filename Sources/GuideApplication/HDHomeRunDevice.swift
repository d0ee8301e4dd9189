import Crypto
import Foundation
import GuideCore
import GuideStore
import XMLTV

/// A feed presented as an HDHomeRun network tuner, the only kind Plex's DVR accepts (Jellyfin, Emby and Channels DVR
/// read it too): the four answers of the device's HTTP API, with the feed's channels that have a stream, their
/// numbers and names as the feed's XMLTV gives them and their stream addresses as the source playlist gave them
/// (tvguide does not relay streams). The fields are those real devices send (docs/media-servers.md; checked against
/// real device answers in the tests).
public struct HDHomeRunDevice: Sendable {
    /// One channel of the lineup.
    public struct Channel: Codable, Equatable, Sendable {
        public var guideNumber: String
        public var guideName: String
        public var url: String
        /// 1 when the name says the channel is HD (as devices mark it), else absent.
        public var hd: Int?

        public enum CodingKeys: String, CodingKey {
            case guideNumber = "GuideNumber", guideName = "GuideName", url = "URL", hd = "HD"
        }
    }

    /// `discover.json`.
    public struct Discovery: Codable, Equatable, Sendable {
        public var friendlyName: String
        public var manufacturer: String
        public var modelNumber: String
        public var firmwareName: String
        public var firmwareVersion: String
        public var deviceID: String
        public var baseURL: String
        public var lineupURL: String
        public var tunerCount: Int

        public enum CodingKeys: String, CodingKey {
            case friendlyName = "FriendlyName", manufacturer = "Manufacturer", modelNumber = "ModelNumber"
            case firmwareName = "FirmwareName", firmwareVersion = "FirmwareVersion", deviceID = "DeviceID"
            case baseURL = "BaseURL", lineupURL = "LineupURL", tunerCount = "TunerCount"
        }
    }

    /// `lineup_status.json`: no scan running, none needed (the lineup is the feed's).
    public struct LineupStatus: Codable, Equatable, Sendable {
        var scanInProgress = 0
        var scanPossible = 0
        var source = "Cable"
        var sourceList = ["Cable"]

        public init() {}

        public enum CodingKeys: String, CodingKey {
            case scanInProgress = "ScanInProgress", scanPossible = "ScanPossible", source = "Source", sourceList = "SourceList"
        }
    }

    /// The model and firmware a network tuner of this kind reports (an HDHomeRun CONNECT for cable and antenna
    /// streams); clients choose how to talk to a device by them.
    public static let model = "HDTC-2US"
    public static let firmware = (name: "hdhomeruntc_atsc", version: "20200101")
    /// Streams one device lets a media server use at once: IPTV providers commonly allow two.
    public static let tunerCount = 2

    /// The feed's name, shown as the device's.
    public var name: String
    /// Where the device's answers are: `http://HOST:PORT` or that and a path, without a closing slash.
    public var base: String
    /// The device's id: 8 hex digits, the same for a feed whatever address it is read at.
    public var deviceID: String
    public var feedID: Int64

    /// The device for `feed`, read at `base`.
    public init(feed: LineupFeed, base: String) {
        self.name = feed.name
        self.base = base
        self.deviceID = Self.deviceID(feed: feed.id)
        self.feedID = feed.id
    }

    /// 8 hex digits from the feed's id, stable across restarts and addresses, distinct for each feed of a guide; the
    /// last is the check digit libhdhomerun's discovery asks of a device id (``checkDigitHolds(_:)``), and the first
    /// three are never those of the legacy models clients treat differently (HDHR-US, HDHR3-US, HDHR-EU...).
    public static func deviceID(feed: Int64) -> String {
        String(format: "%08X", deviceNumber(feed: feed))
    }

    /// ``deviceID(feed:)`` as the number discovery packets carry.
    public static func deviceNumber(feed: Int64) -> UInt32 {
        let digest = Array(SHA256.hash(data: Data("tvguide HDHomeRun device \(feed)".utf8)))
        var number = (UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])) & 0xFFFF_FFF0
        // Models 0x100-0x103, 0x111, 0x120-0x122 are read as legacy devices (no base URL of their own).
        if [0x100, 0x101, 0x102, 0x103, 0x111, 0x120, 0x121, 0x122].contains(number >> 20) { number ^= 0x8000_0000 }
        return number | UInt32(checkNibble(number))
    }

    /// The digit that makes libhdhomerun's check of the other seven come to 0 (`hdhomerun_discover_validate_device_id`).
    static func checkNibble(_ number: UInt32) -> UInt8 {
        var sum: UInt8 = 0
        for shift in stride(from: 28, through: 4, by: -4) {
            let nibble = Int((number >> UInt32(shift)) & 0xF)
            sum ^= (shift / 4) % 2 == 1 ? checkTable[nibble] : UInt8(nibble)
        }
        return sum
    }

    /// Whether `number`'s check digit holds, as libhdhomerun's clients check it.
    public static func checkDigitHolds(_ number: UInt32) -> Bool { checkNibble(number & 0xFFFF_FFF0) == UInt8(number & 0xF) }

    private static let checkTable: [UInt8] = [0xA, 0x5, 0xF, 0x6, 0x7, 0xC, 0x1, 0xB, 0x9, 0x2, 0x8, 0xD, 0x4, 0x3, 0xE, 0x0]

    public var discovery: Discovery {
        Discovery(friendlyName: "tvguide \(name)", manufacturer: "tvguide", modelNumber: Self.model,
                  firmwareName: Self.firmware.name, firmwareVersion: Self.firmware.version, deviceID: deviceID,
                  baseURL: base, lineupURL: base + "/lineup.json", tunerCount: Self.tunerCount)
    }

    /// The lineup from the feed's channels with a stream: each numbered as the guide numbers it, else by its place in
    /// the feed after the highest number (a number is never given twice: Plex matches guide and tuner by it).
    public static func lineup(_ channels: [(number: String?, name: String, stream: String)]) -> [Channel] {
        var taken = Set<String>()
        var numbered: [Channel?] = channels.map { channel in
            guard let number = channel.number?.trimmingCharacters(in: .whitespaces), !number.isEmpty,
                  taken.insert(number).inserted else { return nil }
            return Channel(guideNumber: number, guideName: channel.name, url: channel.stream, hd: isHD(channel.name) ? 1 : nil)
        }
        // After the highest real channel number (a hostile or mistaken one in the millions is passed over).
        var next = taken.compactMap { Int($0.split(separator: ".").first ?? "") }.filter { (0..<1_000_000).contains($0) }.max() ?? 0
        for (index, channel) in channels.enumerated() where numbered[index] == nil {
            repeat { next += 1 } while taken.contains(String(next))
            taken.insert(String(next))
            numbered[index] = Channel(guideNumber: String(next), guideName: channel.name, url: channel.stream,
                                      hd: isHD(channel.name) ? 1 : nil)
        }
        return numbered.compactMap { $0 }
    }

    public static func isHD(_ name: String) -> Bool {
        name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { ["HD", "FHD", "UHD", "4K"].contains($0.uppercased()) }
    }

    /// `device.xml`: the UPnP description SSDP discovery points at.
    public var deviceDescription: String {
        let escape = XMLTVWriter.escape
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <root xmlns="urn:schemas-upnp-org:device-1-0">
              <specVersion><major>1</major><minor>0</minor></specVersion>
              <URLBase>\(escape(base))</URLBase>
              <device>
                <deviceType>urn:schemas-upnp-org:device:MediaServer:1</deviceType>
                <friendlyName>\(escape("tvguide " + name))</friendlyName>
                <manufacturer>tvguide</manufacturer>
                <modelName>\(Self.model)</modelName>
                <modelNumber>\(Self.model)</modelNumber>
                <serialNumber>\(deviceID)</serialNumber>
                <UDN>\(udn)</UDN>
              </device>
            </root>

            """
    }

    /// The device's UPnP unique name.
    public var udn: String { Self.udn(feed: feedID) }

    /// The UPnP unique name of feed `feed`'s device.
    public static func udn(feed: Int64) -> String {
        let digest = SHA256.hash(data: Data("tvguide HDHomeRun UDN \(feed)".utf8)).map { String(format: "%02x", $0) }.joined()
        let hex = Array(digest.prefix(32))
        return "uuid:" + [hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]].map { String($0) }.joined(separator: "-")
    }
}

extension HDHomeRunDevice {
    /// One of the device's answers: its bytes and their type; `device.xml` is never compressed (UPnP readers).
    public struct Answer: Sendable {
        public var contentType: String
        public var bytes: [UInt8]
        public var compressible = true
    }

    /// The device's answer for `file` of `feed` (`discover.json`, `lineup_status.json`, `lineup.json`, `device.xml`),
    /// nil for any other: the same whichever door serves it (the guide's `/hdhomerun/TOKEN/`, a feed's tuner port).
    public func answer(_ file: String, of feed: LineupFeed, from feeds: LineupFeeds) async throws -> Answer? {
        let json: any Encodable
        switch file {
        case "discover.json": json = discovery
        case "lineup_status.json": json = LineupStatus()
        case "lineup.json":
            json = Self.lineup(try await feeds.streams(of: feed).map { channel, entry in
                (number: channel.number ?? entry.number, name: channel.name, stream: entry.stream)
            })
        case "device.xml": return Answer(contentType: "application/xml; charset=utf-8", bytes: Array(deviceDescription.utf8), compressible: false)
        default: return nil
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Answer(contentType: "application/json", bytes: Array(try encoder.encode(json)))
    }
}
