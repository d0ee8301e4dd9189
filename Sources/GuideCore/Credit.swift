/// One person in a programme's credits.
public struct Credit: Hashable, Codable, Sendable {
    /// The part a person plays in making the programme, in xmltv.dtd's order.
    public enum Role: String, Codable, Sendable, CaseIterable {
        case director, actor, writer, adapter, producer, composer, editor, presenter, commentator, guest
    }

    public var role: Role
    public var name: String
    /// The character an actor plays.
    public var character: String?
    /// An actor appearing as a guest (`guest="yes"`).
    public var isGuest: Bool
    public var images: [String]
    public var urls: [String]

    public init(role: Role, name: String, character: String? = nil, isGuest: Bool = false, images: [String] = [], urls: [String] = []) {
        self.role = role
        self.name = name
        self.character = character
        self.isGuest = isGuest
        self.images = images
        self.urls = urls
    }
}
