import ChronicleSchema
import ChronicleLog
import Foundation
import UUIDText

/// Consecutive events of the log as a declared model reads them, or what kept the model from
/// reading each. Made where the log is read (on a read-ahead's thread when a catch-up is far
/// behind), folded by ``ModelStatesBatch``.
///
/// The records are read in place: an event keeps its position, whether this replica wrote it
/// and what the model read, not a copy of its record. The few a merge needs whole (a pulled
/// event about an entity this replica wrote to) the batch reads again.
struct ModelChunk: Sendable {
    /// One event of the chunk.
    struct Entry: Sendable {
        let position: UInt64
        /// Written by this replica.
        let isOwn: Bool
        /// The event as the model reads it, with its entity's place in the model, or why it cannot.
        let read: Result<(event: ChronicleModel.Event, place: Int), ChronicleModel.EventProblem>
        /// The stream of an event not read (a read one's is its entity's and id's).
        let unreadStream: String?
    }

    private(set) var entries: [Entry] = []
    /// The bytes of the events' data.
    private(set) var bytes = 0

    /// Reads the records `stored` holds by `reader`, as replica `deviceID` (this one) sees them;
    /// nil when it holds none.
    init?(_ stored: StoredRecords, reader: ChronicleModel.EventReader, deviceID: String) throws {
        guard stored.count > 0 else { return nil }
        entries.reserveCapacity(stored.count)
        try stored.forEach { view in
            bytes += view.data.count
            let read = Result { () throws(ChronicleModel.EventProblem) -> (event: ChronicleModel.Event, place: Int) in
                try reader.readPlaced(type: view.type, stream: view.stream, data: view.data, schemaVersion: Int(view.schemaVersion))
            }
            let unreadStream = read.isFailure ? String(decoding: view.stream, as: UTF8.self) : nil
            entries.append(Entry(position: view.position, isOwn: view.hasOrigin(deviceID), read: read, unreadStream: unreadStream))
        }
    }

    /// The position of the first event (the chunk is never empty).
    var first: UInt64 { entries[0].position }
    /// The position of the last event.
    var last: UInt64 { entries[entries.count - 1].position }

    /// The stream of `entry`, an event of this chunk read by `model` (spelt as the log spells it).
    static func stream(of entry: Entry, in model: ChronicleModel) -> String {
        switch entry.read {
        case .success(let read): model.entities[read.place].stream(of: read.event.id)
        case .failure: entry.unreadStream ?? ""   // always there for an event not read
        }
    }
}

private extension Result {
    var isFailure: Bool {
        if case .failure = self { true } else { false }
    }
}
