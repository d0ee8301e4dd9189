import Foundation
import Hummingbird

/// The context of every request: JSON written as the CLI writes it, and request bodies kept small.
public struct GuideRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// Forms and API calls are a few kilobytes; anything much larger is refused with 413.
    public var maxUploadSize: Int { 64 * 1024 }

    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
