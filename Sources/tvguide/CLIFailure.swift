import ArgumentParser
import GuideCore
import GuideIngest
import GuideStore
import XMLTV

/// An error as the CLI shows it: one sentence on stderr that says what to do, and a non-zero exit.
struct CLIFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// Runs `body`, turning the modules' errors into messages.
    static func translating<T>(context: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIFailure(message(for: error, context: context))
        }
    }

    static func translating<T>(context: String? = nil, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw CLIFailure(message(for: error, context: context))
        }
    }

    static func message(for error: any Error, context: String?) -> String {
        let words = Output.words
        let prefix = context.map { "\($0): " } ?? ""
        // Every error that says what went wrong as a Sentence is worded in the terminal's language; others as they came.
        switch error {
        case let error as XMLTVError:
            return prefix + words("{error}. Nothing was changed in the guide.", ["error": error.sentence.worded(words)])
        case let error as IngestError:
            return prefix + words("{error}. Nothing was changed in the guide.", ["error": error.sentence.worded(words)])
        case let error as StoreError where error.code == .corrupt:
            return prefix + words("{error}. Move the file aside and import again.", ["error": error.message(words)])
        case let error as StoreError:
            return prefix + error.message(words)
        case let error as CLIFailure:
            return prefix + error.description
        default:
            return prefix + Sentence(error).worded(words)
        }
    }
}
