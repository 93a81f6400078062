import ChronicleTodoDomain
import ChronicleLog
/// An event of the log as the merge takes it (``MergeDecoder``): its domain event and whether
/// this replica wrote it. Read in place, an event that decodes keeps nothing else, so reading it
/// copies out only what the domain event holds; the few the merge needs whole (a pulled event
/// about a stream this replica wrote to earlier) it reads again.
struct ReadRecord {
    let position: UInt64
    /// Nil when the stored event does not decode (the models skip it).
    let event: DomainEvent?
    /// Written by this replica.
    let isOwn: Bool
    /// The bytes of the event's data.
    let dataBytes: Int
    /// The stored event, when it was at hand (read whole) or the event does not decode (its
    /// stream is then known from it alone).
    let recorded: RecordedEvent?

    init(_ recorded: RecordedEvent, deviceID: String) {
        position = recorded.position
        event = MergeDecoder.domainEvent(recorded)
        isOwn = recorded.origin == deviceID
        dataBytes = recorded.data.count
        self.recorded = recorded
    }

    /// `deviceID`: this replica's device id.
    init(_ view: RecordView, deviceID: String) {
        position = view.position
        event = try? DomainEvent(view)
        isOwn = view.hasOrigin(deviceID)
        dataBytes = view.data.count
        recorded = event == nil ? view.recorded() : nil
    }

    /// The event's stream: the one its domain event names (which decoding checked is the
    /// record's, spelt canonically), or the stored one's.
    var stream: String {
        event?.stream ?? recorded?.stream ?? ""   // one of the two is always there
    }

    /// The stored event, read again from `log` unless it is at hand.
    func recorded(from log: EventLog) throws -> RecordedEvent {
        if let recorded { return recorded }
        guard let stored = try log.event(at: position) else {
            throw EventLogError.corruptRecord(position: position, reason: "position \(position) is missing")
        }
        return stored
    }

    /// The events of `stored`, read in place.
    static func records(_ stored: StoredRecords, of log: EventLog) throws -> [ReadRecord] {
        let deviceID = log.deviceID
        var records: [ReadRecord] = []
        records.reserveCapacity(stored.count)
        try stored.forEach { records.append(ReadRecord($0, deviceID: deviceID)) }
        return records
    }
}
