import ArgumentParser
import Foundation
import GuideCore
import GuideHTTP
import GuideStore
import SchedulesDirect

/// `tvguide schedules-direct`: the guide's Schedules Direct account and its lineups. A source of format
/// `schedulesdirect` then names the lineups (`tvguide sources add US schedulesdirect USA-IL57303-X`).
struct SchedulesDirectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedules-direct",
        abstract: Output.words("Sign in to Schedules Direct, find lineups and add them to the account."),
        discussion: Output.words("tvguide keeps Schedules Direct's rules: one token, reused until it expires; no retry after an error; after an account error nothing is asked until the password is changed here. docs/sources.md says more."),
        subcommands: [Login.self, Status.self, Find.self, AddLineup.self, RemoveLineup.self, Logout.self],
        defaultSubcommand: Status.self
    )

    /// The guide's database and Schedules Direct's address (`schedules-direct-url`).
    struct Connection: ParsableArguments {
        @OptionGroup var store: StoreOptions

        /// Runs `body` with a client for the signed-in account.
        func withClient<T>(_ body: (SchedulesDirectClient, any GuideDatabase) async throws -> T) async throws -> T {
            let base = try await store.settings().address(.schedulesDirectURL, else: SchedulesDirectClient.defaultBase)
            return try await store.withDatabase { database in try await withHTTPTransport { transport in
                guard let client = try await SDConnection(base: base, transport: transport).client(store: database, now: GuideClock.system().now) else {
                    throw CLIFailure(Output.words("not signed in to Schedules Direct: tvguide schedules-direct login USER (the password on standard input)"))
                }
                return try await body(client, database)
            } }
        }

        /// Adds `lineup` to the account or removes it, saying how many changes SD allows today.
        func change(_ lineup: String, adding: Bool) async throws {
            try await withClient { client, _ in
                let left = adding ? try await client.addLineup(lineup) : try await client.removeLineup(lineup)
                let words = Output.words
                let said = switch (adding, left) {
                case (true, let left?): words.plural("Added {lineup}; {count} change left today.", "Added {lineup}; {count} changes left today.", count: left, ["lineup": lineup])
                case (false, let left?): words.plural("Removed {lineup}; {count} change left today.", "Removed {lineup}; {count} changes left today.", count: left,
                                                      ["lineup": lineup])
                case (true, nil): words("Added {lineup}.", ["lineup": lineup])
                case (false, nil): words("Removed {lineup}.", ["lineup": lineup])
                }
                Output.line(said)
            }
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("Sign in with a Schedules Direct user name; the password is read from standard input and kept only as SD's SHA-1."))

        @OptionGroup var store: StoreOptions

        @Argument(help: .words("The Schedules Direct user name."))
        var username: String

        func run() async throws {
            let password = readLine(strippingNewline: true) ?? ""
            guard !password.isEmpty, !username.isEmpty, username.utf8.count <= 100 else {
                throw CLIFailure(Output.words("give the user name as the argument and the password on standard input"))
            }
            let account = SchedulesDirectClient.Account(username: username, password: password)
            let base = try await store.settings().address(.schedulesDirectURL, else: SchedulesDirectClient.defaultBase)
            try await store.withDatabase { database in try await withHTTPTransport { transport in
                // Checked with one login before it is kept.
                let clock = GuideClock.system()
                let client = SchedulesDirectClient(account: account, transport: transport, states: StoredSDState(cache: database, now: clock.now),
                                                   base: base, now: clock.now)
                let status = try await client.status()
                try await SDConnection.keep(account, in: database)
                Output.line(Output.words("Signed in to Schedules Direct as {user}; the account expires {expires}.",
                                         ["user": username, "expires": status.account?.expires ?? Output.words("(not said)")]))
            } }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("The account: when it expires, SD's messages, its lineups."))

        @OptionGroup var connection: Connection

        func run() async throws {
            try await connection.withClient { client, _ in
                let status = try await client.status()
                let words = Output.words
                let expires = status.account?.expires ?? words("(not said)")
                Output.line(status.isOnline ? words("Schedules Direct: online; the account expires {expires}", ["expires": expires])
                                            : words("Schedules Direct: not online; the account expires {expires}", ["expires": expires]))
                for message in (status.account?.messages ?? []) + (status.notifications ?? []) where !message.text.isEmpty {
                    Output.line("  " + words("SD says: {message}", ["message": message.text]))
                }
                let lineups = try await client.lineups()
                Output.line(lineups.isEmpty ? words("No lineups yet: tvguide schedules-direct find COUNTRY POSTALCODE")
                            : "Lineups (\(lineups.count) of \(status.account?.maxLineups ?? 4)):")
                for lineup in lineups {
                    Output.line("  \(lineup.lineup)  \(lineup.isDeleted == true ? words("deleted by SD") : [lineup.name, lineup.transport, lineup.location].compactMap { $0 }.joined(separator: ", "))")
                }
            }
        }
    }

    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("The lineups serving a postal code (country as ISO alpha-3: USA, CAN, GBR)."))

        @OptionGroup var connection: Connection

        @Argument(help: .words("The country, ISO 3166 alpha-3 (USA, CAN)."))
        var country: String

        @Argument(help: .words("The postal code."))
        var postalCode: String

        func run() async throws {
            guard country.count == 3, country.allSatisfy(\.isLetter), (1...16).contains(postalCode.count) else {
                throw CLIFailure(Output.words("give a three-letter country (USA, CAN, GBR) and a postal code"))
            }
            try await connection.withClient { client, _ in
                let headends = try await client.headends(country: country.uppercased(), postalCode: postalCode)
                for headend in headends {
                    for lineup in headend.lineups {
                        Output.line("\(lineup.lineup)  \([lineup.name, headend.transport, headend.location].compactMap { $0 }.joined(separator: ", "))")
                    }
                }
                if headends.isEmpty { Output.line(Output.words("No lineups for {postcode} in {country}.", ["postcode": postalCode, "country": country])) }
            }
        }
    }

    struct AddLineup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add",
                                                        abstract: Output.words("Add a lineup to the account (SD allows 4, and 6 additions a day)."))

        @OptionGroup var connection: Connection

        @Argument(help: .words("The lineup, as find lists it (USA-IL57303-X)."))
        var lineup: String

        func run() async throws {
            try await connection.change(lineup, adding: true)
        }
    }

    struct RemoveLineup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: Output.words("Remove a lineup from the account."))

        @OptionGroup var connection: Connection

        @Argument(help: .words("The lineup (USA-IL57303-X)."))
        var lineup: String

        func run() async throws {
            try await connection.change(lineup, adding: false)
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Forget the Schedules Direct account."))

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withDatabase { database in try await SDConnection.keep(nil, in: database) }
            Output.line(Output.words("Forgot the Schedules Direct account; its sources fail until someone signs in again."))
        }
    }
}
