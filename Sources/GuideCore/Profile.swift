import Foundation

/// A profile's row id.
public struct ProfileID: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// Someone who uses the guide: their name, what they may do, how they sign in, and how they like the grid.
public struct Profile: Hashable, Codable, Sendable {
    /// Viewers read the guide and keep their own channels; admins also import listings and manage profiles.
    public enum Role: String, Codable, Sendable, CaseIterable {
        case viewer, admin
    }

    /// A password, or a PIN of 4 to 8 digits for a family member on the sofa.
    public enum SecretKind: String, Codable, Sendable, CaseIterable {
        case password, pin
    }

    public var id: ProfileID
    public var name: String
    public var role: Role
    public var secretKind: SecretKind
    /// The hour the guide's day starts, 0-23, in the profile's zone.
    public var dayStartHour: Int
    /// An IANA zone name; nil means the zone the browser reports (or the server's).
    public var timeZone: String?

    public init(id: ProfileID, name: String, role: Role, secretKind: SecretKind, dayStartHour: Int = 5, timeZone: String? = nil) {
        self.id = id
        self.name = name
        self.role = role
        self.secretKind = secretKind
        self.dayStartHour = dayStartHour
        self.timeZone = timeZone
    }

    public var isAdmin: Bool { role == .admin }

    /// Why `secret` cannot be a `kind`, in words for the form; nil when it can.
    public static func problem(with secret: String, as kind: SecretKind) -> String? {
        switch kind {
        case .pin:
            guard (4...8).contains(secret.count), secret.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return "A PIN is 4 to 8 digits."
            }
        case .password:
            guard secret.count >= 8 else { return "A password has at least 8 characters." }
            guard secret.utf8.count <= 72 else { return "A password has at most 72 bytes (bcrypt reads no further)." }
        }
        return nil
    }

    /// Why `name` cannot name a profile; nil when it can.
    public static func problem(withName name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "A profile needs a name." }
        guard trimmed.count <= 40 else { return "A profile name has at most 40 characters." }
        guard !trimmed.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            return "A profile name is one line of text."
        }
        return nil
    }
}

/// How long a profile waits after wrong passwords or PINs: free tries first, then a doubling wait, so guessing a
/// 4-digit PIN takes years while a family member who mistypes twice never notices.
public struct SignInThrottle: Sendable {
    /// Wrong tries allowed before the first wait.
    public var freeTries = 5
    /// The wait after the first try over; each further wrong try doubles it.
    public var firstWait: TimeInterval = 30
    /// The longest wait.
    public var longestWait: TimeInterval = 3600

    public init() {}

    /// How long to wait after `failures` wrong tries in a row; nil while tries are still free.
    public func wait(afterFailures failures: Int) -> TimeInterval? {
        guard failures >= freeTries else { return nil }
        let doublings = min(failures - freeTries, 20)
        return min(longestWait, firstWait * Double(1 << doublings))
    }
}
