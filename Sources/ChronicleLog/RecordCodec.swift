import Crypto
import Foundation
import UUIDText

/// The binary layout of one stored event (see `docs/FORMAT.md`).
///
/// ```
/// 0      u8   format (1)
/// 1      u8   flags (0)
/// 2..5   u32  CRC-32C of bytes 6..<end
/// 6..13  u64  position
/// 14..21 u64  stream version
/// 22..29 i64  timestamp, Unix milliseconds
/// 30..45      event id (16 bytes)
/// 46..77      SHA-256(previous hash ‖ bytes 6..<46 ‖ bytes 78..<end)
/// 78...  u16 stream length, stream ‖ u16 type length, type ‖ [u16 schema version, format 2 only]
///        ‖ u16 origin length, origin ‖ u32 data length, data
/// ```
/// Integers are big-endian. An event of schema version 1 is written in format 1 (as every
/// record was before schema versions existed); a later schema version in format 2.
enum RecordCodec {
    /// The format this code writes; stores written by a newer one are refused.
    static let currentFormat: UInt8 = 2
    static let headerSize = 78
    static let hashRange = 46..<78
    static let genesisHash = [UInt8](repeating: 0, count: 32)

    /// Encodes an event; returns the record bytes and its chain hash.
    static func encode(position: UInt64, id: UUID, stream: String, version: UInt64, type: String, schemaVersion: UInt16 = 1,
                       timestampMilliseconds: Int64, origin: String, data: Data,
                       previousHash: [UInt8]) -> (bytes: [UInt8], hash: [UInt8]) {
        var record: [UInt8] = []
        let hash = previousHash.withUnsafeBytes {
            encode(into: &record, position: position, id: id, stream: stream, version: version, type: type,
                   schemaVersion: schemaVersion, timestampMilliseconds: timestampMilliseconds, origin: origin, data: data,
                   previousHash: ChainHash($0))
        }
        return (record, hash.bytes)
    }

    /// Encodes an event into `record`, whose bytes it replaces (a writer passes the same array
    /// for every record, so its memory is allocated once); returns the record's chain hash.
    static func encode(into record: inout [UInt8], position: UInt64, id: UUID, stream: String, version: UInt64, type: String,
                       schemaVersion: UInt16, timestampMilliseconds: Int64, origin: String, data: Data,
                       previousHash: ChainHash) -> ChainHash {
        var (stream, type, origin) = (stream, type, origin)
        let size = headerSize + 2 + stream.utf8.count + 2 + type.utf8.count + (schemaVersion == 1 ? 0 : 2)
            + 2 + origin.utf8.count + 4 + data.count
        record.removeAll(keepingCapacity: true)
        record.append(contentsOf: repeatElement(0, count: size))
        // Written in place: appended piece by piece, the record cost an append call per field.
        record.withUnsafeMutableBytes { buffer in
            var writer = RecordWriter(buffer)
            writer.byte(schemaVersion == 1 ? 1 : 2)
            writer.byte(0)
            writer.bigEndian(UInt32(0))   // the checksum, below
            writer.bigEndian(position)
            writer.bigEndian(version)
            writer.bigEndian(UInt64(bitPattern: timestampMilliseconds))
            withUnsafeBytes(of: id.uuid) { writer.bytes($0) }
            writer.skip(hashRange.count)   // the chain hash, below
            stream.withUTF8 { writer.bigEndian(UInt16($0.count)); writer.bytes(UnsafeRawBufferPointer($0)) }
            type.withUTF8 { writer.bigEndian(UInt16($0.count)); writer.bytes(UnsafeRawBufferPointer($0)) }
            if schemaVersion != 1 { writer.bigEndian(schemaVersion) }
            origin.withUTF8 { writer.bigEndian(UInt16($0.count)); writer.bytes(UnsafeRawBufferPointer($0)) }
            writer.bigEndian(UInt32(data.count))
            data.withUnsafeBytes { writer.bytes($0) }
        }
        return record.withUnsafeMutableBytes { buffer in
            let hash = chainHash(of: UnsafeRawBufferPointer(buffer), previousHash: previousHash)
            hash.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[hashRange]).copyMemory(from: $0) }
            let crc = CRC32C.update(0, UnsafeRawBufferPointer(rebasing: buffer[6...]))
            buffer.storeBytes(of: crc.bigEndian, toByteOffset: 2, as: UInt32.self)
            return hash
        }
    }

    /// Writes a record's fields one after another into memory sized for them.
    private struct RecordWriter {
        let buffer: UnsafeMutableRawBufferPointer
        private(set) var offset = 0

        init(_ buffer: UnsafeMutableRawBufferPointer) {
            self.buffer = buffer
        }

        mutating func byte(_ value: UInt8) {
            buffer[offset] = value
            offset += 1
        }

        mutating func bigEndian<T: FixedWidthInteger>(_ value: T) {
            buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
            offset += MemoryLayout<T>.size
        }

        /// Leaves `count` bytes as they are, to be filled in later.
        mutating func skip(_ count: Int) {
            offset += count
        }

        mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + bytes.count]).copyMemory(from: bytes)
            offset += bytes.count
        }
    }

    /// The chain hash a record should carry, given its predecessor's hash.
    static func chainHash(of record: UnsafeRawBufferPointer, previousHash: [UInt8]) -> [UInt8] {
        previousHash.withUnsafeBytes { chainHash(of: record, previousHash: ChainHash($0)).bytes }
    }

    /// The chain hash a record should carry, given its predecessor's hash:
    /// SHA-256(previous hash ‖ bytes 6..<46 ‖ bytes 78..<end).
    static func chainHash(of record: UnsafeRawBufferPointer, previousHash: ChainHash) -> ChainHash {
        var hasher = SHA256()
        previousHash.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: record[6..<46]))
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: record[78...]))
        return hasher.finalize().withUnsafeBytes { ChainHash($0) }
    }

    /// Whether the stored CRC matches the bytes.
    static func checksumMatches(_ record: UnsafeRawBufferPointer) -> Bool {
        guard record.count >= headerSize else { return false }
        let stored = record.readBigEndian(UInt32.self, at: 2)
        return stored == CRC32C.update(0, UnsafeRawBufferPointer(rebasing: record[6...]))
    }

    /// The hash stored in a record (no other decoding).
    static func storedHash(_ record: UnsafeRawBufferPointer) -> ChainHash? {
        guard record.count >= headerSize else { return nil }
        return ChainHash(UnsafeRawBufferPointer(rebasing: record[hashRange]))
    }

    /// Decodes a record. Every length is bounds-checked: damaged bytes give an error, never a crash.
    static func decode(_ record: UnsafeRawBufferPointer, verifyChecksum: Bool = false) throws(RecordError) -> RecordedEvent {
        try view(record, verifyChecksum: verifyChecksum).recorded()
    }

    /// Reads a record's fields in place, checked as ``decode(_:verifyChecksum:)`` checks them:
    /// the format, the flags, the checksum (with `verifyChecksum`), every length, UTF-8 texts,
    /// and no trailing bytes.
    static func view(_ record: UnsafeRawBufferPointer, verifyChecksum: Bool = false) throws(RecordError) -> RecordView {
        guard record.count >= headerSize else { throw .truncated }
        let format = record[0]
        guard format <= currentFormat, format > 0 else { throw .unsupportedFormat(format) }
        // Format 1 defines no flags, and the byte is outside the checksum.
        guard record[1] == 0 else { throw .unknownFlags(record[1]) }
        if verifyChecksum, !checksumMatches(record) { throw .checksum }
        var reader = ByteReader(buffer: record, offset: 6)
        let position = try reader.u64()
        let version = try reader.u64()
        let timestamp = Int64(bitPattern: try reader.u64())
        reader.offset = headerSize
        let stream = try reader.text(length: Int(try reader.u16()))
        let type = try reader.text(length: Int(try reader.u16()))
        let schemaVersion = format >= 2 ? try reader.u16() : 1
        guard schemaVersion >= 1 else { throw .schemaVersionZero }
        let origin = try reader.text(length: Int(try reader.u16()))
        let data = try reader.bytes(length: Int(try reader.u32()))
        guard reader.offset == record.count else { throw .trailingBytes }
        return RecordView(position: position, version: version, timestampMilliseconds: timestamp, schemaVersion: schemaVersion,
                          stream: stream, type: type, origin: origin, data: data, record: record)
    }

    /// Reads only the stream (its UTF-8 bytes, where they lie in `record`) and version of a
    /// record whose checksum matches (for indexing).
    static func streamAndVersion(_ record: UnsafeRawBufferPointer) throws(RecordError) -> (stream: UnsafeRawBufferPointer, version: UInt64) {
        guard record.count >= headerSize else { throw .truncated }
        guard checksumMatches(record) else { throw .checksum }
        var reader = ByteReader(buffer: record, offset: headerSize)
        let stream = try reader.text(length: Int(try reader.u16()))
        return (stream, record.readBigEndian(UInt64.self, at: 14))
    }

    /// Whether a record whose checksum matches was written by `origin` (compared as bytes),
    /// read without decoding the rest; also returns the position the record says.
    static func position(_ record: UnsafeRawBufferPointer, ifOrigin origin: String) throws(RecordError) -> (position: UInt64, matches: Bool) {
        guard record.count >= headerSize else { throw .truncated }
        let format = record[0]
        guard format <= currentFormat, format > 0 else { throw .unsupportedFormat(format) }
        guard record[1] == 0 else { throw .unknownFlags(record[1]) }
        guard checksumMatches(record) else { throw .checksum }
        var reader = ByteReader(buffer: record, offset: headerSize)
        reader.offset += Int(try reader.u16())   // stream
        reader.offset += Int(try reader.u16())   // type
        if format >= 2 { _ = try reader.u16() }  // schema version
        let stored = try reader.take(Int(try reader.u16()))
        return (record.readBigEndian(UInt64.self, at: 6), origin.sameBytes(as: stored))
    }

    /// Reads only the type name (for filtered scans that skip most records).
    static func decodeType(_ record: UnsafeRawBufferPointer) throws(RecordError) -> String {
        var reader = ByteReader(buffer: record, offset: headerSize)
        let streamLength = Int(try reader.u16())
        reader.offset += streamLength
        return try reader.string(length: Int(try reader.u16()))
    }
}

/// Why a stored record could not be read.
enum RecordError: Error, Equatable, CustomStringConvertible {
    case truncated, checksum, trailingBytes, badText, schemaVersionZero
    case unsupportedFormat(UInt8)
    case unknownFlags(UInt8)

    var description: String {
        switch self {
        case .truncated: "record is truncated"
        case .checksum: "checksum mismatch"
        case .trailingBytes: "record has trailing bytes"
        case .badText: "record holds invalid UTF-8"
        case .schemaVersionZero: "record has schema version 0"
        case .unknownFlags(let flags): "record has unknown flags \(flags)"
        case .unsupportedFormat(let format):
            "record format \(format) is not supported by this version (it reads up to \(RecordCodec.currentFormat))"
        }
    }
}

/// A bounds-checked reader over raw bytes.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var offset: Int

    mutating func take(_ count: Int) throws(RecordError) -> UnsafeRawBufferPointer {
        guard count >= 0, offset <= buffer.count, count <= buffer.count - offset else { throw .truncated }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }
    mutating func u16() throws(RecordError) -> UInt16 { try take(2).readBigEndian(UInt16.self, at: 0) }
    mutating func u32() throws(RecordError) -> UInt32 { try take(4).readBigEndian(UInt32.self, at: 0) }
    mutating func u64() throws(RecordError) -> UInt64 { try take(8).readBigEndian(UInt64.self, at: 0) }
    mutating func string(length: Int) throws(RecordError) -> String {
        String(decoding: try text(length: length), as: UTF8.self)
    }
    /// The next `length` bytes, which must be valid UTF-8 (ASCII, the usual case, checked first).
    mutating func text(length: Int) throws(RecordError) -> UnsafeRawBufferPointer {
        let bytes = try take(length)
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else { throw .badText }
        return bytes
    }
    mutating func bytes(length: Int) throws(RecordError) -> UnsafeRawBufferPointer { try take(length) }
}
