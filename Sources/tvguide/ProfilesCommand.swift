import ArgumentParser
import Foundation
import GuideCore
import GuideServer
import GuideStore

/// `tvguide profiles list|unlock|reset-secret`: for an owner locked out of signing in, or who forgot the PIN. Works
/// on the database directly, so it needs the machine, not the web.
struct ProfilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: Output.words("List profiles, lift sign-in waits, set a new password or PIN."),
        subcommands: [List.self, Unlock.self, ResetSecret.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Every profile, with its sign-in waits."))

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withDatabase { database in
                let now = GuideClock.system().now()
                let profiles = try await database.profiles()
                let words = Output.words
                if profiles.isEmpty { Output.line(words("No profiles yet: tvguide serve prints a setup code for the first.")) }
                for profile in profiles {
                    let counts = try await database.signInCounts(name: profile.name)
                    var line = "\(profile.name)  \(profile.role.rawValue)  \(profile.secretKind.rawValue)"
                    let waiting = counts.filter { ($0.value.waitingUntil ?? .distantPast) > now }
                    for (key, count) in waiting.sorted(by: { $0.key.address < $1.key.address }) {
                        let until = count.waitingUntil ?? now
                        let when = words.moment(until, Output.viewerClock())
                        line += "\n    " + (key.address.isEmpty
                            ? words.plural("waiting until {when} after {count} try from many addresses", "waiting until {when} after {count} tries from many addresses",
                                           count: count.failures, ["when": when])
                            : words.plural("waiting until {when} after {count} try from {address}", "waiting until {when} after {count} tries from {address}",
                                           count: count.failures, ["when": when, "address": key.address]))
                    }
                    Output.line(line)
                }
            }
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Forget a profile's wrong tries, so it can sign in at once from anywhere."))

        @OptionGroup var store: StoreOptions
        @Argument(help: .words("The profile's name.")) var name: String

        func run() async throws {
            try await store.withDatabase { database in
                let profile = try await Self.profile(named: name, in: database)
                let cleared = try await database.clearSignInCounts(name: profile.name)
                Output.line(cleared == 0 ? Output.words("{name} had no wrong tries to forget.", ["name": profile.name])
                                         : Output.words("{name} can sign in again.", ["name": profile.name]))
            }
        }

        static func profile(named name: String, in database: any GuideDatabase) async throws -> Profile {
            guard let profile = try await database.credentials(named: name)?.profile else {
                throw CLIFailure(Output.words("there is no profile called {name}; tvguide profiles list shows them", ["name": name]))
            }
            return profile
        }
    }

    struct ResetSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-secret",
            abstract: Output.words("Give a profile a new password or PIN, read from standard input (never from the command line)."))

        @OptionGroup var store: StoreOptions
        @Argument(help: .words("The profile's name.")) var name: String
        @Flag(help: .words("The new secret is a 4-8 digit PIN (default: a password of 8 or more characters).")) var pin = false

        func run() async throws {
            try await store.withDatabase { database in
                let profile = try await Unlock.profile(named: name, in: database)
                Output.error(pin ? Output.words("New PIN for {name}, then Enter:", ["name": profile.name])
                                 : Output.words("New password for {name}, then Enter:", ["name": profile.name]))
                let secret = readLine(strippingNewline: true) ?? ""
                let kind: Profile.SecretKind = pin ? .pin : .password
                if let problem = Profile.problem(with: secret, as: kind) { throw CLIFailure(problem.message(Output.words)) }
                try await CLIFailure.translating {
                    try await database.resetSecret(of: profile.id, secretKind: kind, secretHash: GuideServer.hashSecret(secret))
                    try await database.clearSignInCounts(name: profile.name)
                }
                Output.line(pin ? Output.words("{name} has a new PIN, and can sign in at once.", ["name": profile.name])
                                : Output.words("{name} has a new password, and can sign in at once.", ["name": profile.name]))
            }
        }
    }
}
