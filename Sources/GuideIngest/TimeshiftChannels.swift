import Foundation
import GuideCore
import GuideStore

/// Makes the timeshift channels' programmes: each definition's base channel's programmes, as the guide shows them
/// (merged from every source), moved by its offset, imported as the listings of the source ``source``. Real rows,
/// so the grid, On now, search, details, reminders and feeds show a timeshift channel like any other.
///
/// Run after every import (``ListingImporter``) and after an admin changes a definition; one import, so a failure
/// keeps the programmes there were. A base channel with no listings gives its timeshift channels none.
public struct TimeshiftChannels: Sendable {
    /// The source timeshift channels' programmes are listed under.
    public static let source = SourceName("timeshift channels")

    public let store: any ListingStore & ChannelSettingsStore

    public init(store: any ListingStore & ChannelSettingsStore) {
        self.store = store
    }

    /// Rebuilds every timeshift channel's programmes; nil when there was nothing to do (no definitions, and
    /// `always` false: an import's routine call, so a guide without timeshift channels never gets the source).
    @discardableResult
    public func rebuild(always: Bool = false) async throws -> ImportSummary? {
        let definitions = try await store.timeshiftChannels()
        guard always || !definitions.isEmpty else { return nil }
        let byBase = Dictionary(grouping: definitions, by: \.base)
        var listings: [ChannelListings] = []
        if let coverage = try await store.coverage(), !byBase.isEmpty {
            listings = try await store.guide(in: coverage, channels: Array(byBase.keys), detail: .full)
        }
        let channels = try await store.channels()
        let known = Dictionary(channels.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try await store.importListings(from: Self.source) { sink in
            for definition in definitions {
                let base = known[definition.base]
                sink.add(Channel(id: definition.id, displayNames: [LocalizedText(definition.name)],
                                 icons: definition.logo.map { [Icon(src: $0)] } ?? base?.icons ?? [], number: definition.number))
            }
            let shiftedBy = { (definition: TimeshiftChannel) in TimeInterval(definition.offsetMinutes * 60) }
            for base in listings {
                for definition in byBase[base.channel] ?? [] {
                    for stored in base.programmes {
                        var programme = stored.programme
                        programme.channel = definition.id
                        programme.start = programme.start.addingTimeInterval(shiftedBy(definition))
                        programme.stop = stored.end.addingTimeInterval(shiftedBy(definition))
                        sink.add(programme, line: nil)
                    }
                }
            }
            sink.retire(allBut: Set(definitions.map(\.id)))
        }
    }
}
