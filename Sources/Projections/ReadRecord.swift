import Domain
import EventLog

/// An event of the log as the merge takes it (``MergeDecoder``): its domain event, whether this
/// replica wrote it, and the stored event itself only where the merge may need its other fields.
///
/// Most events a rebuild reads are this replica's own and decode: those keep nothing else, so
/// reading them copies out only what the domain event holds.
struct ReadRecord {
    let position: UInt64
    /// Nil when the stored event does not decode (the models skip it).
    let event: DomainEvent?
    /// Written by this replica.
    let isOwn: Bool
    /// The bytes of the event's data.
    let dataBytes: Int
    /// The stored event: kept for an event from another replica (a pulled one merges with
    /// this replica's writes) or one that does not decode.
    let recorded: RecordedEvent?

    init(_ recorded: RecordedEvent, deviceID: String) {
        position = recorded.position
        event = MergeDecoder.domainEvent(recorded)
        isOwn = recorded.origin == deviceID
        dataBytes = recorded.data.count
        self.recorded = recorded
    }

    /// `deviceID`: this replica's device id, as UTF-8.
    init(_ view: RecordView, deviceID: [UInt8]) {
        position = view.position
        event = try? DomainEvent(view)
        isOwn = view.hasOrigin(deviceID)
        dataBytes = view.data.count
        recorded = isOwn && event != nil ? nil : view.recorded()
    }

    /// The event's stream: the stored one's, or the one its domain event names (which decoding
    /// checked is the record's, spelt canonically).
    var stream: String {
        recorded?.stream ?? event?.stream ?? ""   // one of the two is always there
    }

    /// The events of `stored`, read in place.
    static func records(_ stored: StoredRecords, of log: EventLog) throws -> [ReadRecord] {
        let deviceID = Array(log.deviceID.utf8)
        var records: [ReadRecord] = []
        records.reserveCapacity(stored.count)
        try stored.forEach { records.append(ReadRecord($0, deviceID: deviceID)) }
        return records
    }
}
