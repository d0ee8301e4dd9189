import Foundation
import GuideCore
import GuideHTTP
import GuideStore

extension SourceRefresher {
    /// The groups each feed's last import stored (``ListingLayout/groups(in:context:)``), by location: what a refresh
    /// compares a feed's days with, so as to read (and download into the file) only those that changed. None when the
    /// source was never imported, reads every refresh whole, or changed its time shift or zone since.
    func storedGroups(_ validators: [String: HTTPValidators], importedAt: Date?, timeShift: Int,
                      localZone: TimeZone?) -> [String: [String: ListingLayout.Stored]] {
        guard readsChangesOnly, let importedAt else { return [:] }
        let context = RefreshPlan.context(importedAt: importedAt, timeShift: timeShift, localZone: localZone)
        return validators.compactMapValues { stored in
            ContentDigests.layout(in: stored.content).flatMap { ListingLayout.groups(in: $0, context: context) }
        }
    }

    /// The stored groups a download is written in part against (``PartialDownload``): none when two of the feed's
    /// channels went to one guide channel at the last import, since a refresh then reads it whole and would download
    /// it twice every time.
    static func partialBase(_ stored: [String: ListingLayout.Stored]?) -> [String: ListingLayout.Stored]? {
        guard let stored else { return nil }
        var targets: Set<String> = []
        return stored.values.allSatisfy { targets.insert($0.target).inserted } ? stored : nil
    }

    /// What a refresh of one plain feed reads of it (``RefreshPlan``), when its last import's days are known.
    func refreshPlan(_ feeds: [FetchedFeed], stored: [String: [String: ListingLayout.Stored]],
                     transform: ListingTransform) -> RefreshPlan? {
        guard feeds.count == 1, let feed = feeds.first, let layout = feed.layout,
              let previous = stored[feed.location] else { return nil }
        return RefreshPlan(layout: layout, previous: previous, transform: transform, wholeAtHand: feed.written == nil)
    }

    /// `feed`, written only in part (``PartialDownload``), downloaded again and written whole, for a refresh that must
    /// read more of it; nil if the server now sends the bytes last imported. Counted in `report` as a download.
    func downloadWhole(_ feed: FetchedFeed, validators: [String: HTTPValidators], localZone: TimeZone?,
                       credentials: HTTPCredentials?, report: inout SourceReport,
                       tracker: ProgressTracker) async throws -> FetchedFeed? {
        feed.discard()
        let source = report.source
        let result = try await slots.run {
            try await fetcher.fetch(feed.location, validators: validators[feed.location], localZone: localZone,
                                    credentials: credentials) { tracker.feed(source, $0) }
        }
        report.downloads += 1
        switch result {
        case .notModified:
            report.notModified += 1
            return nil
        case .fetched(let whole):
            report.bytes += whole.bytes
            return whole
        }
    }
}
