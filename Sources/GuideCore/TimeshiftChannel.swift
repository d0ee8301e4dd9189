import Foundation

/// A channel that shows another channel's programmes later or earlier ("BBC One +1", an East or West feed): its own
/// id, name, number and logo, and the programmes of `base` moved by `offsetMinutes`.
public struct TimeshiftChannel: Hashable, Sendable {
    public var id: ChannelID
    public var base: ChannelID
    /// Minutes later (negative: earlier) than `base`, within ``offsetRange``, never 0.
    public var offsetMinutes: Int
    public var name: String
    public var number: String?
    /// A logo's address; nil to show the base channel's.
    public var logo: String?

    /// A day either way.
    public static let offsetRange = -1440...1440

    public init(id: ChannelID, base: ChannelID, offsetMinutes: Int, name: String, number: String? = nil, logo: String? = nil) {
        self.id = id
        self.base = base
        self.offsetMinutes = offsetMinutes
        self.name = name
        self.number = number
        self.logo = logo
    }

    /// The offset as people write it: "+1", "+2", "-3", "+30 min", "+1 h 30 min".
    public static func label(_ minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let size = minutes.magnitude
        if size % 60 == 0 { return sign + String(size / 60) }
        return sign + (size >= 60 ? "\(size / 60) h \(size % 60) min" : "\(size) min")
    }

    /// The id a timeshift channel gets unless an admin gives one: the base's with the offset (`bbc1.uk+1`).
    public static func defaultID(base: ChannelID, offsetMinutes: Int) -> ChannelID {
        ChannelID(base.rawValue + label(offsetMinutes).replacingOccurrences(of: " ", with: ""))
    }
}
