import Foundation
import GuideCore

/// Every language's catalog (`locales/LANG.po`, shipped with the program), read once; a viewer's ``Localizer``
/// comes from here.
public struct Translations: Sendable {
    public let catalogs: [Language: MessageCatalog]

    /// Reads the shipped catalogs of `languages` (all by default); a broken one is an error naming the file and line
    /// (the tests read them all).
    public init(_ languages: [Language] = Language.supported) throws {
        guard let folder = Bundle.module.url(forResource: "locales", withExtension: nil) else {
            throw CatalogError("this build has no locales folder")
        }
        var catalogs: [Language: MessageCatalog] = [:]
        for language in languages {
            let file = folder.appendingPathComponent("\(language.code).po")
            let text = try String(contentsOf: file, encoding: .utf8)
            do {
                catalogs[language] = try MessageCatalog(po: text, language: language)
            } catch let error as MessageCatalog.ReadError {
                throw CatalogError("locales/\(language.code).po \(error)")
            }
        }
        self.catalogs = catalogs
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
