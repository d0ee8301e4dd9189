import ArgumentParser
import GuideCore

@main
struct TVGuide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tvguide",
        abstract: Output.words("A self-hosted TV guide: import XMLTV listings, see what is on, search, export; follow shows."),
        version: TVGuideVersion.number,
        subcommands: [
            ImportCommand.self, ChannelsCommand.self, NowCommand.self, ListingsCommand.self, SearchCommand.self,
            GridCommand.self, ExportCommand.self, ServeCommand.self, SourcesCommand.self, RefreshCommand.self,
            HealthCommand.self, ShowsCommand.self, FollowCommand.self, UnfollowCommand.self, UpcomingCommand.self,
            EpisodeCommand.self, PersonCommand.self, ProfilesCommand.self, BackupCommand.self, RestoreCommand.self,
            ConfigCommand.self, SchedulesDirectCommand.self, GrabbersCommand.self, WatchedCommand.self, ProgressCommand.self, HistoryCommand.self,
            TVMazeAccountCommand.self,
        ]
    )
}
