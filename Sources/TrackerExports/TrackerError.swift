/// A tracker export tvguide cannot read, and why, in words a user can act on.
public struct TrackerError: Error, Sendable, CustomStringConvertible, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
