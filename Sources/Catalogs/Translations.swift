import Foundation
import GuideCore
import Synchronization

/// Every language's catalog (`locales/LANG.po`, shipped with the program), read once; a viewer's ``Localizer``
/// comes from here.
public struct Translations: Sendable {
    public let catalogs: [Language: MessageCatalog]

    /// The shipped catalogs of `languages` (all by default); a broken one is an error naming the file and line (the
    /// tests read them all).
    public init(_ languages: [Language] = Language.supported) throws {
        catalogs = try Self.read.withLock { read in
            var catalogs: [Language: MessageCatalog] = [:]
            for language in languages {
                let catalog = try read[language] ?? Self.catalog(language)
                (read[language], catalogs[language]) = (catalog, catalog)
            }
            return catalogs
        }
    }

    /// Each catalog read so far. The shipped files do not change while the program runs, so each is read once a
    /// process: the tests make hundreds of servers, and reading the six files for each was a fifth of the Swift suite's
    /// CPU time.
    private static let read = Mutex<[Language: MessageCatalog]>([:])

    private static func catalog(_ language: Language) throws -> MessageCatalog {
        guard let folder else { throw CatalogError("this build has no locales folder") }
        let file = folder.appendingPathComponent("\(language.code).po")
        let text = try String(contentsOf: file, encoding: .utf8)
        do {
            return try MessageCatalog(po: text, language: language)
        } catch let error as MessageCatalog.ReadError {
            throw CatalogError("locales/\(language.code).po \(error)")
        }
    }

    /// The words and formats for `language`, dates and numbers as `locale` writes them.
    public func localizer(_ language: Language, locale: Locale? = nil) -> Localizer {
        Localizer(language: language, locale: locale ?? Locale(identifier: language.code), catalog: catalogs[language])
    }

    /// The folder the catalogs are read from, for tools and tests that list them.
    public static var folder: URL? { Bundle.module.url(forResource: "locales", withExtension: nil) }
}

/// A catalog that could not be read.
public struct CatalogError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
