/// The tuner ports the devices door runs, as the assembly and the admin's feed page see them: given the feeds to answer
/// from, told when an admin changed the ports, asked how each port is doing.
public protocol TunerPortControl: Sendable {
    /// The feeds to answer from (the assembly's, once).
    func attach(_ feeds: LineupFeeds)
    /// Feeds' ports changed: start and stop servers now.
    func changed()
    /// The state of each feed's port, by feed id.
    func states() -> [Int64: (port: Int, state: TunerPortState)]
}

/// How a tuner port's server is doing, for the admin page.
public enum TunerPortState: Sendable, Equatable {
    case starting, listening
    case failed(String)
}
