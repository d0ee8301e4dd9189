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

    /// How the pages look: as the device's setting says, or always light or dark.
    public enum Theme: String, Codable, Sendable, CaseIterable {
        case system, light, dark
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
    public var theme: Theme = .system
    /// The language of the pages and messages; nil follows the browser's (or, for messages, English).
    public var language: Language?
    /// The languages of the listings, in order, where a programme has titles in several (German titles first, then
    /// English), whatever language the pages are in; empty: the pages' language, then the browser's.
    public var listingLanguages: [String] = []
    /// Times on the locale's clock, or always 12 or 24 hours.
    public var hours: ViewerClock.HourCycle = .locale
    /// Whether an admin let this profile ask the recorder to record (an admin always may: ``mayRecord``).
    public var canRecord = false

    public var mayRecord: Bool { isAdmin || canRecord }

    /// The same profile, allowed to record or not.
    public func recording(_ allowed: Bool) -> Profile {
        var profile = self
        profile.canRecord = allowed
        return profile
    }

    public init(id: ProfileID, name: String, role: Role, secretKind: SecretKind, dayStartHour: Int = 5, timeZone: String? = nil) {
        self.id = id
        self.name = name
        self.role = role
        self.secretKind = secretKind
        self.dayStartHour = dayStartHour
        self.timeZone = timeZone
    }

    public var isAdmin: Bool { role == .admin }

    /// Why `secret` cannot be a `kind`, for the form (worded when shown); nil when it can.
    public static func problem(with secret: String, as kind: SecretKind) -> FieldError? {
        switch kind {
        case .pin:
            guard (4...8).contains(secret.count), secret.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return FieldError(name: "secret", saying: "A PIN is 4 to 8 digits.")
            }
        case .password:
            guard secret.count >= 8 else { return FieldError(name: "secret", saying: "A password has at least 8 characters.") }
            guard secret.utf8.count <= 72 else { return FieldError(name: "secret", saying: "A password has at most 72 bytes (bcrypt reads no further).") }
        }
        return nil
    }

    /// Why `name` cannot name a profile, for the form (worded when shown); nil when it can.
    public static func problem(withName name: String) -> FieldError? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return FieldError(name: "name", saying: "A profile needs a name.") }
        guard trimmed.count <= 40 else { return FieldError(name: "name", saying: "A profile name has at most 40 characters.") }
        guard !trimmed.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            return FieldError(name: "name", saying: "A profile name is one line of text.")
        }
        return nil
    }
}

/// How sign-in tries are throttled, counted before any secret is checked. Three counts, each with free tries and
/// then a doubling wait: one client address trying one name (a family member who mistypes twice never notices;
/// a 4-digit PIN takes years), one address trying any names, and every address together trying one name. The last
/// bounds a distributed attack; an address that signed in to the name within ``trustFor`` is exempt from it, so an
/// attack from elsewhere never locks the owner out of their own devices.
public struct SignInThrottle: Sendable {
    /// Free tries, then a wait that doubles with each further try.
    public struct Rule: Sendable {
        /// Tries allowed before the first wait (the try that reaches it is still checked).
        public var freeTries: Int
        /// The wait after the last free try; each further try doubles it.
        public var firstWait: TimeInterval
        /// The longest wait.
        public var longestWait: TimeInterval

        public init(freeTries: Int, firstWait: TimeInterval, longestWait: TimeInterval) {
            self.freeTries = freeTries
            self.firstWait = firstWait
            self.longestWait = longestWait
        }

        /// How long to wait after `failures` tries counted in a row; nil while tries are still free.
        public func wait(afterFailures failures: Int) -> TimeInterval? {
            guard failures >= freeTries else { return nil }
            return min(longestWait, firstWait * Double(1 << Bounded.clamped(failures - freeTries, to: 0...20)))
        }
    }

    /// One client address trying one name: 5 free, then 30 s doubling to an hour.
    public var addressAndName = Rule(freeTries: 5, firstWait: 30, longestWait: 3600)
    /// One client address trying any names (spraying): 20 free, then 30 s doubling to an hour.
    public var address = Rule(freeTries: 20, firstWait: 30, longestWait: 3600)
    /// Every address together trying one name: 50 free, then 60 s doubling to an hour (at most 55 guesses in the
    /// first hour of an attack, 1 an hour after).
    public var name = Rule(freeTries: 50, firstWait: 60, longestWait: 3600)
    /// How long an address that signed in to a name stays exempt from that name's shared count.
    public var trustFor: TimeInterval = 30 * 86_400
    /// Counts idle this long are forgotten.
    public var forgetAfter: TimeInterval = 86_400

    public init() {}
}

extension Profile {
    /// The profile with `theme`.
    public func themed(_ theme: Theme) -> Profile {
        var profile = self
        profile.theme = theme
        return profile
    }

    /// The profile speaking `language` (nil: the browser's), its times on `hours`.
    public func speaking(_ language: Language?, hours: ViewerClock.HourCycle = .locale) -> Profile {
        var profile = self
        profile.language = language
        profile.hours = hours
        return profile
    }

    /// The profile reading listings in `languages` first.
    public func reading(_ languages: [String]) -> Profile {
        var profile = self
        profile.listingLanguages = languages
        return profile
    }
}
