import ChronicleEvents
import Foundation
import JSONText
import UUIDText

/// Why bytes received over the wire were refused: one line that names the member at fault.
///
/// ```
/// events[3]: "version" must be a positive integer
/// invalid JSON: unexpected ']' at byte 120
/// ```
public struct WireEventError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The one-line reason, naming the member at fault.
    public var message: String
    /// Makes an error whose description is `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A push request body: `{"device": "<device id>", "events": [<event without position>, …]}`.
public struct WirePush: Sendable, Equatable {
    /// The device that sent the batch (not necessarily the origin of every event).
    public var device: String
    /// The batch's events, without positions.
    public var events: [ForeignEvent]

    /// Makes a push body from its parts.
    public init(device: String, events: [ForeignEvent]) {
        self.device = device
        self.events = events
    }

    /// The body a client sends for `events`, each in the wire form without position,
    /// with the stored payload bytes embedded as they are.
    public static func encode(device: String, events: [RecordedEvent]) -> Data {
        var body = "{\"device\":" + EventJSON.quote(device) + ",\"events\":["
        body.reserveCapacity(events.reduce(64) { $0 + 200 + $1.data.count })
        for (index, event) in events.enumerated() {
            if index > 0 { body += "," }
            body += EventJSON.encode(event, includePosition: false)
        }
        body += "]}"
        return Data(body.utf8)
    }
}

/// A push's answer: `{"accepted":2,"duplicates":0,"lastPosition":2}`, each member once, none other.
public struct WireAcknowledgement: Sendable, Equatable {
    /// Events of the batch stored now.
    public var accepted: Int
    /// Events of the batch the server already had.
    public var duplicates: Int
    /// The tenant's last position after the push (at least `accepted`: positions have no gaps).
    public var lastPosition: UInt64

    /// Makes an answer from its parts.
    public init(accepted: Int, duplicates: Int, lastPosition: UInt64) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.lastPosition = lastPosition
    }

    /// The JSON body of this answer.
    public func encode() -> String {
        "{\"accepted\":\(accepted),\"duplicates\":\(duplicates),\"lastPosition\":\(lastPosition)}"
    }
}

/// A pull response body: `{"events": [<event with the server's position>, …], "lastPosition": n}`.
public struct WirePage: Sendable, Equatable {
    /// The tenant's events after the requested position, in server order, each with its position.
    public var events: [RecordedEvent]
    /// The position of the page's last event; for an empty page, the tenant's last position on the server.
    public var lastPosition: UInt64

    /// Makes a page from its parts.
    public init(events: [RecordedEvent], lastPosition: UInt64) {
        self.events = events
        self.lastPosition = lastPosition
    }

    /// The most bytes of event data a server puts in one page: the page ends before the event
    /// that would take its data past this (the first event always comes, whatever its size).
    /// So a pull's answer is bounded by more than its `limit`: events of up to
    /// `EventValidation.maxDataBytes` each would otherwise make a page of 10,000 of them 78 GiB.
    public static let maxDataBytes = 16 << 20

    /// Whether more events may follow this page, asked with `limit`: it is full, or its data
    /// is too large to tell that the page reached the end rather than ``maxDataBytes`` (a page
    /// cut there holds more than `maxDataBytes - EventValidation.maxDataBytes`, since the
    /// event that did not fit holds at most `EventValidation.maxDataBytes`). False means the
    /// page reached the tenant's last event when it was read.
    public func mayContinue(limit: Int) -> Bool {
        events.count >= limit || events.reduce(0, { $0 + $1.data.count }) > Self.maxDataBytes - EventValidation.maxDataBytes
    }

    /// The JSON body of this page.
    public func encode() -> Data {
        Data(("{\"events\":" + EventJSON.encodeArray(events) + ",\"lastPosition\":\(lastPosition)}").utf8)
    }
}

/// The decoding side of ``EventJSON``: the wire form of events, strict and total.
///
/// ```swift
/// let push = try WireEvent.decodePush(body)          // a server receiving a batch
/// let result = try await log.ingest(push.events)
/// let page = try WireEvent.decodePage(responseBody)  // a client pulling
/// ```
///
/// Every member is required and checked (a UUID id, a positive integer version, an ISO 8601
/// timestamp, a JSON object as data); unknown or repeated members are refused; any bytes
/// (truncated, not UTF-8, nested too deep) give a ``WireEventError``, never a crash.
/// The payload is kept as the exact bytes of its object, validated but not re-encoded,
/// so what a client stored is what the server stores and serves.
public enum WireEvent {
    /// How deeply a payload may nest objects and arrays.
    public static let maxDepth = JSONScanner.maxDepth
    /// The longest origin (a device id) accepted, in UTF-8 bytes.
    public static let maxOriginBytes = EventValidation.maxOriginBytes
    /// The longest device name accepted in a push, in UTF-8 bytes.
    public static let maxDeviceBytes = 256

    /// One event without position (what a client pushes).
    public static func decodeForeign(_ json: Data) throws(WireEventError) -> ForeignEvent {
        try parseDocument(json) { (parser: inout WireParser) throws(WireEventError) -> ForeignEvent in
            try parser.event(label: "event", positioned: false).foreign
        }
    }

    /// One event with its position (what a server serves).
    public static func decodeRecorded(_ json: Data) throws(WireEventError) -> RecordedEvent {
        try parseDocument(json) { (parser: inout WireParser) throws(WireEventError) -> RecordedEvent in
            try parser.event(label: "event", positioned: true).recorded
        }
    }

    /// One event as `chronicle export` (or `log --ndjson`) writes it, its position (if any)
    /// left out: what `chronicle import` stores. The error is that of the exported form, or of
    /// the pushed form for a line without a position.
    public static func decodeExported(_ json: Data) throws(WireEventError) -> ForeignEvent {
        do {
            return try decodeRecorded(json).foreign()
        } catch where error.description.contains("missing \"position\"") {
            return try decodeForeign(json)
        }
    }

    /// A push body. See ``WirePush``.
    public static func decodePush(_ json: Data) throws(WireEventError) -> WirePush {
        try parseDocument(json) { (parser: inout WireParser) throws(WireEventError) -> WirePush in try parser.push() }
    }

    /// A push body read from a buffer (a server's request body, without copying it first).
    public static func decodePush(_ json: UnsafeRawBufferPointer) throws(WireEventError) -> WirePush {
        var parser = WireParser(json)
        let push = try parser.push()
        try parser.end()
        return push
    }

    /// A push response body. See ``WireAcknowledgement``.
    public static func decodeAcknowledgement(_ json: Data) throws(WireEventError) -> WireAcknowledgement {
        try parseDocument(json) { (parser: inout WireParser) throws(WireEventError) -> WireAcknowledgement in
            try parser.acknowledgement()
        }
    }

    /// A pull response body. See ``WirePage``.
    public static func decodePage(_ json: Data) throws(WireEventError) -> WirePage {
        try parseDocument(json) { (parser: inout WireParser) throws(WireEventError) -> WirePage in try parser.page() }
    }

    private static func parseDocument<T>(_ json: Data,
                                         _ body: (inout WireParser) throws(WireEventError) -> T) throws(WireEventError) -> T {
        let result: Result<T, WireEventError> = json.withUnsafeBytes { bytes in
            var parser = WireParser(bytes)
            do throws(WireEventError) {
                let value = try body(&parser)
                try parser.end()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
