import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The generated events on disk, written once per benchmark run and read by every child
/// process, so all systems append byte-identical data and none of them pays for generating it.
///
/// Layout (little-endian): `CHBENCH1`, u64 count, then per event
/// 16 id ‖ u64 version ‖ i64 timestamp ‖ u32 entity ‖ u8 type ‖ u16 stream length, stream ‖ u32 data length, data.
enum DatasetFile {
    static let magic = Array("CHBENCH1".utf8)
}

/// Writes the data set file, one event at a time, through a 1 MiB buffer.
final class DatasetWriter {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private(set) var summary = DatasetSummary()

    init(path: String, count: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else { throw BenchError.io("cannot write \(path)") }
        self.handle = handle
        buffer.reserveCapacity(1 << 20)
        buffer.append(contentsOf: DatasetFile.magic)
        buffer.appendLittle(UInt64(count))
    }

    func append(_ event: BenchEvent) {
        withUnsafeBytes(of: event.id.uuid) { buffer.append(contentsOf: $0) }
        buffer.appendLittle(event.version)
        buffer.appendLittle(UInt64(bitPattern: event.timestampMilliseconds))
        buffer.appendLittle(event.entity)
        buffer.append(UInt8(BenchTypes.code(of: event.type)))
        let stream = Array(event.stream.utf8)
        buffer.appendLittle(UInt16(stream.count))
        buffer.append(contentsOf: stream)
        buffer.appendLittle(UInt32(event.data.count))
        buffer.append(contentsOf: event.data)
        summary.count += 1
        summary.payloadBytes += event.data.count
        summary.typeCounts[event.type, default: 0] += 1
        if buffer.count > (1 << 20) - 4096 { flush() }
    }

    func finish() throws {
        flush()
        try handle.close()
    }

    private func flush() {
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// What the generator produced, for the report.
struct DatasetSummary: Sendable {
    var count = 0
    var payloadBytes = 0
    var typeCounts: [String: Int] = [:]
}

/// The event type names, coded as one byte in the data set file: the todo data set's first
/// (codes 0–7, as they always were), then the notebook's.
enum BenchTypes {
    /// The todo data set's types.
    static let names = ["UserCreated", "UserUpdated", "UserDeleted", "TodoCreated", "TodoUpdated",
                        "TodoCompleted", "TodoReopened", "TodoDeleted"]
    /// Every type a data set file may hold, at its code.
    static let coded = names + NotebookModel.eventTypes
    private static let codes = Dictionary(uniqueKeysWithValues: coded.enumerated().map { ($1, $0) })
    static func code(of name: String) -> Int { codes[name]! }
}

/// Streams the data set file through a read-only memory map: the pages are the file's,
/// not anonymous memory, so reading the data set does not count towards a workload's peak.
final class DatasetReader {
    private let base: UnsafeRawPointer
    private let size: Int
    private var offset: Int
    /// The number of events in the file.
    let count: Int
    /// How many events were handed out so far.
    private(set) var consumed = 0

    init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw BenchError.io("cannot open \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw BenchError.io("cannot stat \(path)") }
        size = Int(info.st_size)
        guard size >= 16, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw BenchError.io("cannot map \(path)")
        }
        base = UnsafeRawPointer(mapped)
        guard UnsafeRawBufferPointer(start: base, count: 8).elementsEqual(DatasetFile.magic) else {
            throw BenchError.io("\(path) is not a chronicle-bench data set")
        }
        count = Int(base.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian)
        offset = 16
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    /// The next event, or nil at the end.
    func next() -> BenchEvent? {
        guard consumed < count, offset < size else { return nil }
        func load<T: FixedWidthInteger>(_: T.Type) -> T {
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        let idBytes = UnsafeRawBufferPointer(start: base + offset, count: 16)
        let id = UUID(uuid: (idBytes[0], idBytes[1], idBytes[2], idBytes[3], idBytes[4], idBytes[5], idBytes[6], idBytes[7],
                             idBytes[8], idBytes[9], idBytes[10], idBytes[11], idBytes[12], idBytes[13], idBytes[14], idBytes[15]))
        offset += 16
        let version = load(UInt64.self)
        let timestamp = Int64(bitPattern: load(UInt64.self))
        let entity = load(UInt32.self)
        let type = BenchTypes.coded[Int(load(UInt8.self))]
        let streamLength = Int(load(UInt16.self))
        let stream = String(decoding: UnsafeRawBufferPointer(start: base + offset, count: streamLength), as: UTF8.self)
        offset += streamLength
        let dataLength = Int(load(UInt32.self))
        let data = Data(UnsafeRawBufferPointer(start: base + offset, count: dataLength))
        offset += dataLength
        consumed += 1
        return BenchEvent(id: id, stream: stream, version: version, type: type, timestampMilliseconds: timestamp,
                          data: data, entity: entity)
    }

    /// Up to `limit` next events (empty at the end).
    func next(_ limit: Int) -> [BenchEvent] {
        var batch: [BenchEvent] = []
        batch.reserveCapacity(limit)
        while batch.count < limit, let event = next() { batch.append(event) }
        return batch
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittle<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendBig<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
