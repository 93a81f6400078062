import ChronicleWire
import ChronicleLog
import Foundation

/// One batch read from the log and encoded for the wire, ready to send.
///
/// The engine prepares the next batch while the current one is on the wire, so reading and
/// encoding never wait for the network. Only this store's own events are pushed: events
/// pulled from the remote are in the log too, and are skipped (the remote has them).
struct PreparedBatch: Sendable {
    /// The acknowledged position the batch follows.
    let after: UInt64
    /// The last log position the batch covers: acknowledging it acknowledges everything up to here.
    let through: UInt64
    /// The store's own events after `after` through `through`.
    let events: [RecordedEvent]
    let body: Data

    /// This store's events among the `limit` after `position`, stopping short of `maxBytes`
    /// of payload, encoded. The log itself is read up to `maxBytes` of event data, pulled events
    /// included, so a batch never holds more than it may send whatever the events' sizes.
    static func read(from log: EventLog, after position: UInt64, limit: Int, maxBytes: Int) throws(SyncError) -> PreparedBatch {
        let read: [RecordedEvent]
        do {
            read = try log.read(after: position, limit: limit, maxBytes: maxBytes)
        } catch {
            throw .storage("cannot read the log: \(error)")
        }
        var events: [RecordedEvent] = []
        var through = position
        var bytes = 0
        for event in read {
            if event.origin == log.deviceID {
                bytes += event.data.count + event.stream.utf8.count + event.type.utf8.count + event.origin.utf8.count + 160
                if bytes > maxBytes, !events.isEmpty { break }
                events.append(event)
            }
            through = event.position
        }
        let body = events.isEmpty ? Data() : WirePush.encode(device: log.deviceID, events: events)
        return PreparedBatch(after: position, through: through, events: events, body: body)
    }
}
