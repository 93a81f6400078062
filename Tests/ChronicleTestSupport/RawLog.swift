import Foundation
import ChronicleLMDB

/// The log's LMDB environment opened directly, to damage a store the way a disk, a bug
/// or an attacker would. The log must be closed: LMDB allows one open handle of an
/// environment per process.
public struct RawLog {
    public let environment: Environment
    public let events: Database
    public let ids: Database
    public let streams: Database
    public let meta: Database

    /// Opens the environment at `logPath`, runs `body`, closes it again.
    @discardableResult
    public static func with<T>(_ logPath: String, _ body: (RawLog) throws -> T) throws -> T {
        let environment = try Environment(path: logPath)
        let raw = RawLog(environment: environment,
                         events: try environment.openDatabase(named: "events", create: false),
                         ids: try environment.openDatabase(named: "ids", create: false),
                         streams: try environment.openDatabase(named: "streams", create: false),
                         meta: try environment.openDatabase(named: "meta", create: false))
        return try body(raw)
    }

    /// The `events` key of `position`: 8 bytes, big-endian.
    public static func key(_ position: UInt64) -> [UInt8] { withUnsafeBytes(of: position.bigEndian) { Array($0) } }

    /// The stored record at `position`.
    public func record(at position: UInt64) throws -> [UInt8]? {
        try environment.read { txn in try txn.get(events, key: Self.key(position)).map { Array($0) } }
    }

    /// Rewrites the record at `position` with `change` applied.
    public func modifyRecord(at position: UInt64, _ change: (inout [UInt8]) -> Void) throws {
        guard var bytes = try record(at: position) else { throw RawLogError.missing(position) }
        change(&bytes)
        try environment.write { txn in try txn.put(events, key: Self.key(position), value: bytes) }
    }

    /// Removes the record at `position` (its index entries stay).
    public func deleteRecord(at position: UInt64) throws {
        let removed = try environment.write { txn in try txn.delete(events, key: Self.key(position)) }
        guard removed else { throw RawLogError.missing(position) }
    }

    /// The `streams` key of `stream`'s event at `position`: stream ‖ 0x00 ‖ position.
    public static func streamKey(_ stream: String, _ position: UInt64) -> [UInt8] { Array(stream.utf8) + [0] + key(position) }

    /// Adds the `streams` entry of `stream`'s event at `position`, of `version`.
    public func putStreamEntry(_ stream: String, position: UInt64, version: UInt64) throws {
        try environment.write { txn in try txn.put(streams, key: Self.streamKey(stream, position), value: Self.key(version)) }
    }

    /// Removes the `streams` entry of `stream`'s event at `position`.
    public func deleteStreamEntry(_ stream: String, position: UInt64) throws {
        let removed = try environment.write { txn in try txn.delete(streams, key: Self.streamKey(stream, position)) }
        guard removed else { throw RawLogError.missing(position) }
    }

    /// Stores `value` under `key` in the `meta` database.
    public func setMeta(_ key: String, _ value: [UInt8]) throws {
        try environment.write { txn in try txn.put(meta, key: Array(key.utf8), value: value) }
    }

    /// Removes `key` from the `meta` database.
    public func deleteMeta(_ key: String) throws {
        _ = try environment.write { txn in try txn.delete(meta, key: Array(key.utf8)) }
    }

    /// The value under `key` in the `meta` database.
    public func meta(_ key: String) throws -> [UInt8]? {
        try environment.read { txn in try txn.get(meta, key: Array(key.utf8)).map { Array($0) } }
    }

    /// How many entries each database holds.
    public func counts() throws -> (events: Int, ids: Int, streams: Int) {
        try environment.read { txn in (try txn.count(events), try txn.count(ids), try txn.count(streams)) }
    }
}

public enum RawLogError: Error {
    case missing(UInt64)
}

/// Record layout facts the damage tests rely on (`docs/FORMAT.md`, format 1).
public enum RecordLayout {
    public static let checksumRange = 2..<6
    public static let hashRange = 46..<78
    public static let headerSize = 78

    /// The range of the data (JSON payload) bytes: the record's tail, after its u32 length.
    public static func dataRange(of record: [UInt8]) -> Range<Int> {
        var offset = headerSize
        for _ in 0..<3 { offset += 2 + (Int(record[offset]) << 8 | Int(record[offset + 1])) }
        let length = record[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        return (offset + 4)..<(offset + 4 + length)
    }

    /// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit: an independent
    /// reference for the codec's table-driven one.
    public static func crc32c(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    /// Stores a freshly computed checksum (big-endian, over bytes 6..<end) in `record`.
    public static func resealChecksum(_ record: inout [UInt8]) {
        let crc = crc32c(record[6...])
        record[2] = UInt8(truncatingIfNeeded: crc >> 24)
        record[3] = UInt8(truncatingIfNeeded: crc >> 16)
        record[4] = UInt8(truncatingIfNeeded: crc >> 8)
        record[5] = UInt8(truncatingIfNeeded: crc)
    }
}
