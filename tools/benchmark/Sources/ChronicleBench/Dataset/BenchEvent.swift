import ChronicleLog
import Foundation

/// One generated event, exactly as every system stores it: same id, stream, version,
/// type, timestamp and payload bytes.
struct BenchEvent: Sendable {
    var id: UUID
    var stream: String
    /// The stream version this event gets (1 for the event that creates the stream).
    var version: UInt64
    var type: String
    var timestampMilliseconds: Int64
    /// The payload, as the todo app's model writes it (``TodoEvent``), so every system's fold reads it.
    var data: Data
    /// The serial number of the user or todo it is about (concurrent writers split on it,
    /// so each stream keeps one writer and its versions stay in order).
    var entity: UInt32

    /// The expected version that makes the append go through exactly when nobody else wrote.
    var expected: ExpectedVersion { version == 1 ? .noStream : .exact(version - 1) }

    /// The event as Chronicle's append takes it.
    var newEvent: NewEvent {
        // Half a millisecond in, so that Chronicle's rounding down gives back exactly this millisecond.
        NewEvent(id: id, type: type, data: data,
                 timestamp: Date(timeIntervalSince1970: (Double(timestampMilliseconds) + 0.5) / 1000))
    }

    /// The one-event append of this event.
    var streamAppend: StreamAppend {
        StreamAppend(stream: stream, expected: expected, events: [newEvent])
    }

    /// The append keys `ChronicleStore`'s command for this event carries (system
    /// `chronicle+keys`): a todo created for a user touches `user-<id>/todos`; a user's
    /// deletion is conditioned on that key (here on no touch after the last possible
    /// position, so it holds whatever was touched: the lookup is the cost). The other
    /// events carry none, as in the store; the dataset has no tags, whose names are claims.
    var appendKeys: [AppendKey] {
        guard let event = try? TodoEvent(type: type, stream: stream, data: data) else { return [] }
        switch event {
        case .todoCreated(_, _, _, let userId?, _): return [.touch("user-\(userId.uuidString.lowercased())/todos")]
        case .userDeleted(let id): return [.unchanged("user-\(id.uuidString.lowercased())/todos", since: .max)]
        default: return []
        }
    }
}

/// The origin every baseline stores: a device id of the same length as Chronicle's.
let baselineOrigin = "0b8a6f0e-2f4c-4d1a-9c3e-5b7d9e1f2a3c"
