/// Events copied out of the log as they are stored (``EventLog/readStored(after:limit:maxBytes:)``):
/// checked when read, read in place after.
///
/// A read transaction that copies each event into a ``RecordedEvent`` allocates its stream,
/// origin, data and hash; one that copies the records allocates a block of 64 KiB for many small
/// records, and an exact one for a record larger than that. A rebuild reads its chunks so, one at
/// a time, and decodes them on whichever core is free. (One buffer grown by doubling held up to
/// twice a chunk of large records, and both copies while it grew.)
public struct StoredRecords: Sendable {
    private static let blockSize = 64 << 10
    private var blocks: [[UInt8]] = []
    /// Each record's block and where it lies in it.
    private var records: [(block: Int, range: Range<Int>)] = []

    /// How many events.
    public var count: Int { records.count }

    /// The position of the last event; nil when there are none.
    public private(set) var last: UInt64?

    mutating func append(_ view: RecordView) {
        let size = view.record.count
        if size > Self.blockSize || blocks.isEmpty || blocks[blocks.count - 1].capacity - blocks[blocks.count - 1].count < size {
            var block: [UInt8] = []
            block.reserveCapacity(max(size, Self.blockSize))
            blocks.append(block)
        }
        let index = blocks.count - 1
        let start = blocks[index].count
        blocks[index].append(contentsOf: view.record)
        records.append((index, start..<start + size))
        last = view.position
    }

    /// Hands `body` each event in order, read in place (valid only during the call).
    public func forEach(_ body: (RecordView) throws -> Void) throws {
        for (block, range) in records {
            try blocks[block].withUnsafeBytes { bytes in
                let record = UnsafeRawBufferPointer(rebasing: bytes[range])
                // Checked, checksum included, when it was read: this only finds the fields again.
                let view: RecordView
                do throws(RecordError) {
                    view = try RecordCodec.view(record)
                } catch {
                    throw EventLogError.corruptRecord(position: (try? record.storedBigEndian(UInt64.self, at: 6, "a record")) ?? 0, reason: error.description)
                }
                try body(view)
            }
        }
    }
}
