import Foundation
import GuideCore

/// A Schedules Direct error code (API 20141201) and what a client keeping SD's rules does on it
/// (../shared/data/schedulesdirect/API-NOTES.md, section 6). The JSON body's `code` is read before the HTTP status:
/// SD sends codes in 200s, 400s, 401s, 403s and 429s alike.
public struct SDCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let ok = SDCode(rawValue: 0)
    public static let invalidJSON = SDCode(rawValue: 1001)
    public static let tokenMissing = SDCode(rawValue: 1004)
    public static let maxChunkExceeded = SDCode(rawValue: 1009)
    public static let debugNotAllowed = SDCode(rawValue: 2055)
    public static let duplicateLineup = SDCode(rawValue: 2100)
    public static let lineupNotFound = SDCode(rawValue: 2101)
    public static let lineupQueued = SDCode(rawValue: 2107)
    public static let stationNotFound = SDCode(rawValue: 2200)
    public static let stationDeleted = SDCode(rawValue: 2201)
    public static let serviceOffline = SDCode(rawValue: 3000)
    public static let serviceBusy = SDCode(rawValue: 3001)
    public static let accountExpired = SDCode(rawValue: 4001)
    public static let invalidHash = SDCode(rawValue: 4002)
    public static let invalidUser = SDCode(rawValue: 4003)
    public static let accountLockout = SDCode(rawValue: 4004)
    public static let accountDisabled = SDCode(rawValue: 4005)
    public static let tokenExpired = SDCode(rawValue: 4006)
    public static let applicationNotAuthorized = SDCode(rawValue: 4007)
    public static let accountInactive = SDCode(rawValue: 4008)
    public static let tooManyLogins = SDCode(rawValue: 4009)
    public static let tooManyAddresses = SDCode(rawValue: 4010)
    public static let maxLineupChanges = SDCode(rawValue: 4100)
    public static let maxLineups = SDCode(rawValue: 4101)
    public static let noLineups = SDCode(rawValue: 4102)
    public static let imageNotFound = SDCode(rawValue: 5000)
    public static let imageQueued = SDCode(rawValue: 5001)
    public static let maxImageDownloads = SDCode(rawValue: 5002)
    public static let maxImageDownloadsTrial = SDCode(rawValue: 5003)
    public static let maxInvalidImages = SDCode(rawValue: 5004)
    public static let invalidProgram = SDCode(rawValue: 6000)
    public static let programQueued = SDCode(rawValue: 6001)
    public static let scheduleNotFound = SDCode(rawValue: 7000)
    public static let invalidScheduleRequest = SDCode(rawValue: 7010)
    public static let scheduleRangeExceeded = SDCode(rawValue: 7020)
    public static let scheduleNotInLineup = SDCode(rawValue: 7030)
    public static let scheduleQueued = SDCode(rawValue: 7100)

    public var description: String { String(rawValue) }

    /// `message`, SD's own words (English whoever reads them), after what the code means in the reader's language;
    /// as it is when it is tvguide's own words or the code has no meaning here.
    public func explained(_ message: Sentence) -> Sentence {
        guard message.isVerbatim, let meaning else { return message }
        return Sentence(saying: "{meaning} (it said: {message})", sentences: ["meaning": meaning, "message": message])
    }

    /// What the code means to the person reading it, and what to do, for the codes an account meets (API-NOTES.md,
    /// section 6); nil for the rest, whose failure is SD's own words.
    public var meaning: Sentence? {
        switch rawValue {
        case 2100: Sentence(saying: "the lineup is already on the account")
        case 2101: Sentence(saying: "Schedules Direct has no such lineup")
        case 3000: Sentence(saying: "Schedules Direct is offline for maintenance; tvguide tries again in an hour")
        case 3001: Sentence(saying: "Schedules Direct is busy; tvguide tries again in an hour")
        case 4001: Sentence(saying: "the account has expired: renew it on schedulesdirect.org")
        case 4002, 4003: Sentence(saying: "the user name or password is wrong")
        case 4004: Sentence(saying: "the account is locked for 15 minutes after too many failed sign-ins")
        case 4005: Sentence(saying: "the account is disabled: ask Schedules Direct")
        case 4007: Sentence(saying: "Schedules Direct has not approved this program")
        case 4008: Sentence(saying: "the account is inactive: renew it on schedulesdirect.org")
        case 4009: Sentence(saying: "too many sign-ins today; tvguide waits a day")
        case 4010: Sentence(saying: "the account is used from too many addresses")
        case 4100: Sentence(saying: "no more lineup changes today; they start again at midnight UTC")
        case 4101: Sentence(saying: "the account has as many lineups as it may (4): remove one first")
        case 4102: Sentence(saying: "the account has no lineups: add one first")
        case 5002, 5003: Sentence(saying: "no more images today; they start again at midnight UTC")
        default: nil
        }
    }

    /// What stops after this code, and until when.
    public enum Stop: Sendable, Equatable {
        /// Nothing: the code is about one element of an answer (a day, a programme), handled where it is read.
        case element
        /// This refresh: keep the guide, record the reason, ask nothing more this run.
        case run
        /// Every call to SD for `seconds` (the service offline or busy; a temporary lock; too many logins).
        case everything(seconds: Int)
        /// Every call to SD until the admin changes the account's credentials (expired, disabled, wrong password,
        /// an application SD has not approved).
        case untilCredentialsChange
        /// Images until 00:00 UTC (SD's counters reset then).
        case imagesUntilMidnight
        /// Adding and removing lineups until 00:00 UTC.
        case lineupChangesUntilMidnight
    }

    /// What a client keeping SD's rules stops on this code (API-NOTES.md, sections 5 and 6).
    public var stop: Stop {
        switch rawValue {
        case 0, 2100, 2201, 4102, 5000, 5001, 6000, 6001, 7000, 7020, 7030, 7100: .element
        case 3000, 3001: .everything(seconds: 3_600)
        case 4004: .everything(seconds: 15 * 60)
        case 4009, 4010: .everything(seconds: 86_400)
        case 4001, 4002, 4003, 4005, 4007, 4008: .untilCredentialsChange
        case 5002, 5003, 5004: .imagesUntilMidnight
        case 4100: .lineupChangesUntilMidnight
        default: .run
        }
    }
}

/// An answer of Schedules Direct carrying an error code, or a call it refused before asking (a lock in force).
public struct SDFailure: WordedError, Sendable, CustomStringConvertible {
    public let code: SDCode
    /// SD's own words (`message`, verbatim), or ours (worded for the reader) for what tvguide found or refused.
    public let message: Sentence
    /// The HTTP status it came with; nil for a lock in force (nothing was asked).
    public let status: Int?
    /// Until when calls are refused, for a lock in force (`distantFuture`: until the credentials change).
    public let until: Date?

    public init(code: SDCode, message: Sentence, status: Int?, until: Date? = nil) {
        (self.code, self.message, self.status, self.until) = (code, message, status, until)
    }

    /// A failure in SD's own words as its answer gave them, or `otherwise` when it gave none.
    init(code: SDCode, said: String?, otherwise: Sentence, status: Int?) {
        self.init(code: code, message: said.map(Sentence.verbatim) ?? otherwise, status: status)
    }

    public var sentence: Sentence {
        let said = Sentence(saying: "Schedules Direct {code}: {message}", ["code": String(code.rawValue)],
                            sentences: ["message": code.explained(message)])
        guard let until else { return said }
        if until == .distantFuture {
            return Sentence(saying: "{failure} (nothing is asked of Schedules Direct until the account's user name or password is changed)",
                            sentences: ["failure": said])
        }
        return Sentence(saying: "{failure} (nothing is asked of Schedules Direct until {time})", ["time": CivilTime.iso8601(until)],
                        sentences: ["failure": said])
    }

    public var description: String { sentence.description }
}
