import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Where Home Assistant's MQTT broker is: `mqtt://[USER@]HOST[:1883]` or `mqtts://[USER@]HOST[:8883]` (TLS), its
/// password apart (the environment: it is never written in a setting's value).
public struct MQTTSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var username: String?
    public var password: String?

    public init(host: String, port: Int, tls: Bool, username: String? = nil, password: String? = nil) {
        (self.host, self.port, self.tls, self.username, self.password) = (host, port, tls, username, password)
    }

    /// The broker `text` names; nil with why for anything else.
    public static func parse(_ text: String, password: String?) -> Result<MQTTSettings, MQTTFailure> {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return .failure(MQTTFailure("\(text) is not an mqtt:// address"))
        }
        guard scheme == "mqtt" || scheme == "mqtts" else { return .failure(MQTTFailure("\(text): the scheme is mqtt or mqtts")) }
        guard url.password == nil else { return .failure(MQTTFailure("the password goes in $TVGUIDE_MQTT_PASSWORD, not the address")) }
        let port = url.port ?? (scheme == "mqtts" ? 8883 : 1883)
        guard (1...65_535).contains(port) else { return .failure(MQTTFailure("the port is from 1 to 65535")) }
        return .success(MQTTSettings(host: host, port: port, tls: scheme == "mqtts", username: url.user?.removingPercentEncoding, password: password))
    }
}

public struct MQTTFailure: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A message received on a subscribed topic.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// Whether the broker kept it and sent it because it was kept (a message published with the retain flag, sent to
    /// each new subscriber), rather than as it was published.
    public var retained = false
}

/// An MQTT 3.1.1 client over SwiftNIO, for Home Assistant's broker: CONNECT with a last will, PUBLISH (QoS 0,
/// retained or not), SUBSCRIBE (QoS 2: messages arrive at the QoS they were published with, each acknowledged as its
/// QoS asks, a QoS 2 one delivered once), PINGREQ every half keep-alive, DISCONNECT. ``session(to:_:clientID:will:keepAlive:_:)``
/// holds one connection while its body runs; whoever loses it connects again. What arrives is bounded: a packet over
/// ``largestPacket`` ends the connection, and so does a broker that stops answering (nothing heard for a keep-alive
/// and a half, its pings unanswered).
public struct MQTTSession: Sendable {
    /// What may arrive in one packet: commands are small.
    public static let largestPacket = 64 * 1024
    public static let keepAlive: UInt16 = 60
    /// QoS 2 messages received and not yet released, at most (more end the connection).
    static let mostUnreleased = 64

    private let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    /// What arrives on subscribed topics, in order; ends with the connection. At most 64 wait (the oldest are dropped).
    public let messages: AsyncStream<MQTTMessage>

    /// Connects to `address` (the broker's, already checked against the outbound policy) and runs `body` with the
    /// session; the broker publishes `will` (retained) if the connection is lost without a DISCONNECT.
    public static func session(to address: String, _ settings: MQTTSettings, clientID: String, will: (topic: String, payload: String),
                               keepAlive: UInt16 = keepAlive, _ body: @escaping @Sendable (MQTTSession) async throws -> Void) async throws {
        let tls = try settings.tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: address, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let name = OutboundName.serverName(settings.host)
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: name))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(MQTTPacket.connect(clientID: clientID, settings: settings, will: will, keepAlive: keepAlive))
            let (messages, delivered) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(64))
            // The broker's CONNACK: the body starts once it accepts.
            let (accepted, accepting) = AsyncStream.makeStream(of: Void.self)
            let session = MQTTSession(writer: outbound, messages: messages)
            let isAccepted = Flag()
            let heard = LastHeard()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { delivered.finish(); accepting.finish() }
                    var packets = PacketReader(inbound.makeAsyncIterator())
                    var unreleased = Set<UInt16>()
                    while let (first, payload) = try await packets.next() {
                        heard.now()
                        switch first >> 4 {
                        case 2:
                            guard payload.count >= 2, payload[1] == 0 else { throw MQTTFailure(MQTTPacket.refusal(payload.count >= 2 ? payload[1] : 255)) }
                            isAccepted.set()
                            accepting.yield()
                        case 3:
                            guard let (message, qos, id) = MQTTPacket.publish(payload, flags: first & 0x0F) else { break }
                            switch (qos, id) {
                            case (1, let id?):
                                delivered.yield(message)
                                try await outbound.write(MQTTPacket.acknowledgement(0x40, id))
                            case (2, let id?):
                                // Delivered once: a PUBLISH sent again before its PUBREL is the same message.
                                if unreleased.insert(id).inserted { delivered.yield(message) }
                                guard unreleased.count <= Self.mostUnreleased else { throw MQTTFailure("more than \(Self.mostUnreleased) messages unreleased") }
                                try await outbound.write(MQTTPacket.acknowledgement(0x50, id))
                            default: delivered.yield(message)
                            }
                        case 6:  // PUBREL: the QoS 2 message is done.
                            guard payload.count >= 2 else { throw MQTTFailure("a malformed PUBREL") }
                            let id = UInt16(payload[0]) << 8 | UInt16(payload[1])
                            unreleased.remove(id)
                            try await outbound.write(MQTTPacket.acknowledgement(0x70, id))
                        case 9:  // SUBACK: 0x80 is a refusal (the broker's access list).
                            if payload.dropFirst(2).contains(0x80) { throw MQTTFailure("the broker refused the subscription") }
                        default: break  // PINGRESP
                        }
                    }
                    throw MQTTFailure("the broker closed the connection")
                }
                group.addTask {
                    var waiting = accepted.makeAsyncIterator()
                    guard await waiting.next() != nil else { throw MQTTFailure("the broker did not accept the connection") }
                    try await body(session)
                    try await outbound.write(ByteBuffer(bytes: [0xE0, 0x00]))
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    // Unanswered by then, the broker is not one.
                    if !isAccepted.isSet { throw MQTTFailure("the broker did not answer CONNECT within 10 s") }
                    while true {
                        try await Task.sleep(for: .milliseconds(Int(keepAlive) * 500))
                        // A ping goes every half keep-alive and is answered at once: silence past a keep-alive is a
                        // broker that has stopped (or a connection that has, unseen).
                        guard heard.since <= .seconds(Int(keepAlive)) else {
                            throw MQTTFailure("the broker stopped answering (nothing for \(keepAlive) s, its pings unanswered)")
                        }
                        try await outbound.write(ByteBuffer(bytes: [0xC0, 0x00]))
                    }
                }
                // The body's end, or any failure, ends the session.
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    /// Publishes `payload` on `topic` at QoS 0.
    public func publish(_ topic: String, _ payload: String, retain: Bool) async throws {
        try await writer.write(MQTTPacket.publish(topic: topic, payload: Array(payload.utf8), retain: retain))
    }

    /// Subscribes to `filter` at QoS 2 (its SUBACK is not awaited: messages simply start to arrive; a refusal in it
    /// ends the session).
    public func subscribe(_ filter: String) async throws {
        try await writer.write(MQTTPacket.subscribe(filter, id: 1))
    }

    /// Reads whole packets from the connection: type and the bytes after the fixed header.
    private struct PacketReader {
        var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        var buffer = ByteBuffer()

        init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
            self.iterator = iterator
        }

        /// A packet's first byte (its type and flags) and the bytes after its fixed header.
        mutating func next() async throws -> (UInt8, [UInt8])? {
            while true {
                if let packet = try MQTTPacket.take(&buffer) { return packet }
                guard var more = try await iterator.next() else { return nil }
                buffer.writeBuffer(&more)
            }
        }
    }
}

/// When the broker was last heard from, for the pings' check.
final class LastHeard: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    func now() { instant.withLock { $0 = .now } }
    var since: Duration { ContinuousClock.now - instant.withLock { $0 } }
}

/// Set once, read from any task.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Host names for TLS: a literal address is not sent as SNI.
enum OutboundName {
    static func serverName(_ host: String) -> String? {
        host.allSatisfy { $0.isNumber || $0 == "." } || host.contains(":") ? nil : host
    }
}

/// MQTT 3.1.1's packets, written and read.
enum MQTTPacket {
    static func connect(clientID: String, settings: MQTTSettings, will: (topic: String, payload: String), keepAlive: UInt16) -> ByteBuffer {
        var flags: UInt8 = 0x02 | 0x04 | 0x20  // clean session, a will, retained
        if settings.username != nil { flags |= 0x80 }
        if settings.password != nil { flags |= 0x40 }
        var body: [UInt8] = string("MQTT") + [4, flags, UInt8(keepAlive >> 8), UInt8(keepAlive & 0xFF)]
        body += string(clientID) + string(will.topic) + string(will.payload)
        if let username = settings.username { body += string(username) }
        if let password = settings.password { body += string(password) }
        return frame(0x10, body)
    }

    static func publish(topic: String, payload: [UInt8], retain: Bool) -> ByteBuffer {
        frame(0x30 | (retain ? 1 : 0), string(topic) + payload)
    }

    static func subscribe(_ filter: String, id: UInt16) -> ByteBuffer {
        frame(0x82, [UInt8(id >> 8), UInt8(id & 0xFF)] + string(filter) + [2])
    }

    /// PUBACK (0x40), PUBREC (0x50) or PUBCOMP (0x70) for packet `id`.
    static func acknowledgement(_ type: UInt8, _ id: UInt16) -> ByteBuffer {
        ByteBuffer(bytes: [type, 0x02, UInt8(id >> 8), UInt8(id & 0xFF)])
    }

    /// A PUBLISH's message, its QoS (from the fixed header's `flags`) and its packet id (QoS 1 and 2 carry one after
    /// the topic), or nil when malformed (a QoS of 3, a QoS above 0 without an id, a topic that is not UTF-8).
    static func publish(_ bytes: [UInt8], flags: UInt8) -> (MQTTMessage, qos: UInt8, id: UInt16?)? {
        let qos = (flags >> 1) & 0x03
        guard qos < 3, bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        let start = 2 + length + (qos > 0 ? 2 : 0)
        guard bytes.count >= start, let topic = String(validating: bytes[2..<2 + length], as: UTF8.self) else { return nil }
        let id = qos > 0 ? UInt16(bytes[2 + length]) << 8 | UInt16(bytes[3 + length]) : nil
        return (MQTTMessage(topic: topic, payload: Array(bytes[start...]), retained: flags & 0x01 == 1), qos, id)
    }

    /// The first whole packet in `buffer` (removed from it), nil while incomplete; throws on one over the bound or a
    /// malformed length.
    static func take(_ buffer: inout ByteBuffer) throws -> (UInt8, [UInt8])? {
        let bytes = buffer.readableBytesView
        guard let first = bytes.first else { return nil }
        var length = 0, multiplier = 1, index = bytes.index(after: bytes.startIndex), count = 0
        while true {
            guard index < bytes.endIndex else { return nil }
            let byte = Int(bytes[index])
            length += (byte & 0x7F) * multiplier
            index = bytes.index(after: index)
            count += 1
            if byte & 0x80 == 0 { break }
            guard count < 4 else { throw MQTTFailure("a malformed packet length") }
            multiplier *= 128
        }
        guard length <= MQTTSession.largestPacket else { throw MQTTFailure("a packet of \(length) bytes, over \(MQTTSession.largestPacket)") }
        let header = 1 + count
        guard bytes.count >= header + length else { return nil }
        buffer.moveReaderIndex(forwardBy: header)
        let body = buffer.readBytes(length: length) ?? []
        buffer.discardReadBytes()
        return (first, body)
    }

    static func refusal(_ code: UInt8) -> String {
        switch code {
        case 1: "the broker does not speak MQTT 3.1.1"
        case 2: "the broker refused the client id"
        case 3: "the broker is unavailable"
        case 4: "the broker refused the user name or password"
        case 5: "the broker refused: not authorised"
        default: "the broker refused the connection (code \(code))"
        }
    }

    private static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8.prefix(65_535))
        return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    private static func frame(_ first: UInt8, _ body: [UInt8]) -> ByteBuffer {
        var length = body.count
        var header: [UInt8] = [first]
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            header.append(byte)
        } while length > 0
        return ByteBuffer(bytes: header + body)
    }
}
