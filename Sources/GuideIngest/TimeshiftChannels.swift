import Foundation
import GuideCore
import GuideStore

/// Makes the timeshift channels' programmes: each definition's base channel's programmes, as the guide shows them
/// (merged from every source), moved by its offset, imported as the listings of the source ``source``. Real rows,
/// so the grid, On now, search, details, reminders and feeds show a timeshift channel like any other.
///
/// The definitions are an admin's (``ChannelSettingsStore/timeshiftChannels()``) and those playlists' `tvg-shift`
/// entries make (``PlaylistMatch/timeshifts(_:for:)``); an admin's wins where both use one id.
///
/// Run after every import (``ListingImporter``), after a playlist's refresh and after an admin changes a definition;
/// one import, so a failure keeps the programmes there were. A base channel with no listings gives its timeshift
/// channels none.
/// What an import needs of the store: the listings, and the channel settings and playlists timeshift channels are
/// made from.
public typealias ImportStore = ListingStore & ChannelSettingsStore & PlaylistStore

public struct TimeshiftChannels: Sendable {
    /// The source timeshift channels' programmes are listed under.
    public static let source = SourceName("timeshift channels")

    public let store: any ImportStore

    public init(store: any ImportStore) {
        self.store = store
    }

    /// The guide setting naming the channels the last rebuild made, one a line: a rebuild with no definitions left
    /// still runs once, to take them away.
    static let madeSetting = "timeshift_channels"

    /// Rebuilds every timeshift channel's programmes; nil when there was nothing to do (no definitions now, none
    /// made before: a guide without timeshift channels never gets the source).
    @discardableResult
    public func rebuild() async throws -> ImportSummary? {
        // Every import asks: with no timeshift channel defined, made before or in a playlist, nothing more is read.
        let chosen = try await store.timeshiftChannels()
        let made = try await store.guideSetting(Self.madeSetting) ?? ""
        let shifted = try await store.hasShiftedPlaylistEntries()
        guard !chosen.isEmpty || !made.isEmpty || shifted else { return nil }
        let channels = try await store.channels()
        let taken = Set(chosen.map(\.id))
        let fromPlaylists = shifted ? try await PlaylistMatch.read(store, for: channels).timeshifts : []
        let definitions = chosen + fromPlaylists.filter { !taken.contains($0.id) }
        guard !definitions.isEmpty || !made.isEmpty else { return nil }
        let byBase = Dictionary(grouping: definitions, by: \.base)
        var listings: [ChannelListings] = []
        if let coverage = try await store.coverage(), !byBase.isEmpty {
            listings = try await store.guide(in: coverage, channels: Array(byBase.keys), detail: .full)
        }
        let known = Dictionary(channels.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let summary = try await store.importListings(from: Self.source) { sink in
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
        try await store.setGuideSetting(Self.madeSetting, definitions.isEmpty ? nil : definitions.map(\.id.rawValue).joined(separator: "\n"))
        return summary
    }
}
