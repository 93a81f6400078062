import ChronicleSchema
import EventLog

/// Consecutive events of the log as a declared model reads them: each record beside its event,
/// or what kept the model from reading it. Made where the log is read (on a read-ahead's
/// thread when a catch-up is far behind), folded by ``ModelStatesBatch``.
struct ModelChunk: Sendable {
    var records: [RecordedEvent] = []
    var events: [Result<ChronicleModel.Event, ChronicleModel.EventProblem>] = []
    /// Each read event's entity, by its place in the model (nil for an event not read).
    var places: [Int?] = []
    /// The bytes of the events' data.
    var bytes = 0

    /// Reads `records` by `reader`.
    init(_ records: [RecordedEvent], reader: ChronicleModel.EventReader) {
        self.records = records
        events.reserveCapacity(records.count)
        places.reserveCapacity(records.count)
        for record in records {
            bytes += record.data.count
            let event = Result { () throws(ChronicleModel.EventProblem) -> ChronicleModel.Event in
                try reader.read(type: record.type, stream: record.stream, data: record.data,
                                schemaVersion: Int(record.schemaVersion))
            }
            events.append(event)
            places.append(event.isSuccess ? reader.entityPlace(ofType: record.type) : nil)
        }
    }

    /// Reads the records `stored` holds by `reader`; nil when it holds none.
    init?(_ stored: StoredRecords, reader: ChronicleModel.EventReader) throws {
        guard stored.count > 0 else { return nil }
        var records: [RecordedEvent] = []
        records.reserveCapacity(stored.count)
        try stored.forEach { records.append($0.recorded()) }
        self.init(records, reader: reader)
    }

    /// The position of the last event (the chunk is never empty when read from the log).
    var last: UInt64? { records.last?.position }
}

private extension Result {
    var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
