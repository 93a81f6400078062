import EventLog
import Foundation

/// One batch read from the log and encoded for the wire, ready to send.
///
/// The engine prepares the next batch while the current one is on the wire, so reading and
/// encoding never wait for the network.
struct PreparedBatch: Sendable {
    /// The acknowledged position the batch follows.
    let after: UInt64
    let events: [RecordedEvent]
    let body: Data

    /// Up to `limit` events after `position`, stopping short of `maxBytes` of payload, encoded.
    static func read(from log: EventLog, after position: UInt64, limit: Int, maxBytes: Int) throws(SyncError) -> PreparedBatch {
        var events: [RecordedEvent]
        do {
            events = try log.read(after: position, limit: limit)
        } catch {
            throw .storage("cannot read the log: \(error)")
        }
        var bytes = 0
        for (index, event) in events.enumerated() {
            bytes += event.data.count + event.stream.utf8.count + event.type.utf8.count + event.origin.utf8.count + 160
            if bytes > maxBytes, index > 0 {
                events.removeSubrange(index...)
                break
            }
        }
        let body = events.isEmpty ? Data() : WirePush.encode(device: log.deviceID, events: events)
        return PreparedBatch(after: position, events: events, body: body)
    }
}
