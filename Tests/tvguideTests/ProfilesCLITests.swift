import Foundation
import GuideCore
import GuideStore
import StoreTestSupport
import Testing

/// `tvguide profiles`: what an owner locked out of the web, or who forgot the PIN, does on the machine.
@Suite struct ProfilesCLITests {
    @Test func anOwnerUnlocksAndResetsTheirPIN() async throws {
        let cli = CLI()
        let store = try await TestDatabase.open(cli.database)
        _ = try await store.createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "x")
        // An attack from two addresses left Sam waiting: 12 wrong tries from each, an hour apart (a try during a wait
        // is not counted), so the last one's wait is an hour: the list below comes within it however loaded the machine.
        let rule = SignInThrottle().addressAndName
        let now = Date()
        for address in ["192.0.2.1", "192.0.2.2"] {
            for hour in 0..<12 {
                _ = try await store.countSignInTry(ThrottleKey(address: address, name: "sam"), rule: rule,
                                                   at: now.addingTimeInterval(Double(hour - 11) * 3600))
            }
        }
        let listed = try await cli.run("profiles", "list")
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("Sam  admin  pin"))
        #expect(listed.stdout.contains("waiting until") && listed.stdout.contains("from 192.0.2.2"), "\(listed.stdout)")

        let unlocked = try await cli.run("profiles", "unlock", "sam")
        #expect(unlocked.status == 0 && unlocked.stdout.contains("Sam can sign in again."))
        #expect(try await store.countSignInTry(ThrottleKey(address: "192.0.2.1", name: "sam"), rule: rule, at: Date())
                == .counted(failures: 1, trusted: false))

        // A new PIN from standard input, checked like the web's; a bad one changes nothing.
        let short = try await cli.run(arguments: ["profiles", "reset-secret", "Sam", "--pin"], input: "12\n")
        #expect(short.status != 0 && short.stderr.contains("4 to 8 digits"), "\(short.stderr)")
        #expect(try await store.credentials(named: "Sam")?.secretHash == "x")
        let reset = try await cli.run(arguments: ["profiles", "reset-secret", "Sam", "--pin"], input: "8642\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        let hash = try #require(try await store.credentials(named: "Sam")?.secretHash)
        #expect(hash.hasPrefix("$2b$12$"))
        await #expect(try cli.run("profiles", "unlock", "nobody").stderr.contains("there is no profile called nobody"))
    }
}
