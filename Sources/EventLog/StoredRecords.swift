/// Events copied out of the log as they are stored, side by side in one buffer
/// (``EventLog/readStored(after:limit:maxBytes:)``): checked when read, read in place after.
///
/// A read transaction that copies each event into a ``RecordedEvent`` allocates its stream,
/// origin, data and hash; one that copies the records allocates once. A rebuild reads its chunks
/// so, one at a time, and decodes them on whichever core is free.
public struct StoredRecords: Sendable {
    private var bytes: [UInt8] = []
    /// Where each record ends in `bytes`.
    private var ends: [Int] = []

    /// How many events.
    public var count: Int { ends.count }

    /// The position of the last event; nil when there are none.
    public private(set) var last: UInt64?

    /// The position a record (checked when read) says.
    private static func position(of record: UnsafeRawBufferPointer) -> UInt64 {
        record.readBigEndian(UInt64.self, at: 6)
    }

    mutating func append(_ view: RecordView) {
        bytes.append(contentsOf: view.record)
        ends.append(bytes.count)
        last = view.position
    }

    /// Hands `body` each event in order, read in place (valid only during the call).
    public func forEach(_ body: (RecordView) throws -> Void) throws {
        try bytes.withUnsafeBytes { all in
            var start = 0
            for end in ends {
                let record = UnsafeRawBufferPointer(rebasing: all[start..<end])
                // Checked, checksum included, when it was read: this only finds the fields again.
                let view: RecordView
                do throws(RecordError) {
                    view = try RecordCodec.view(record)
                } catch {
                    throw EventLogError.corruptRecord(position: Self.position(of: record), reason: error.description)
                }
                try body(view)
                start = end
            }
        }
    }
}
