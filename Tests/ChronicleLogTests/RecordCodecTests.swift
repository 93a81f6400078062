import CCRC32C
import ChronicleTestSupport
@testable import ChronicleLog
import Foundation
import Testing

struct RecordCodecTests {
    @Test func crc32cMatchesTheStandardCheckValue() {
        // The table and, where the CPU has it, the instruction; `update` is one of them.
        var paths: [(String, (UInt32, UnsafeRawBufferPointer) -> UInt32)] = [("update", CRC32C.update), ("table", CRC32C.table)]
        if CRC32C.hasInstruction {
            paths.append(("instruction", { crc, bytes in chronicle_crc32c_instruction(crc, bytes.baseAddress, bytes.count) }))
        }
        let check = Array("123456789".utf8)
        #expect(RecordLayout.crc32c(check) == 0xE306_9283)
        // Sliced (8 bytes at a time) and byte-wise parts agree at every length and split; so do
        // the instruction's blocks of three lanes (of 64 and of 2,048 bytes) joined together,
        // around each length where one more block fits.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for (name, crc32c) in paths {
            #expect(check.withUnsafeBytes { crc32c(0, $0) } == 0xE306_9283, "\(name)")
            #expect([UInt8]().withUnsafeBytes { crc32c(0, $0) } == 0, "\(name)")
            for length in [1, 7, 8, 9, 15, 16, 17, 64, 191, 192, 193, 299, 300, 383, 384, 391, 6_143, 6_144, 6_145, 6_337, 12_480, 20_000] {
                let slice = Array(bytes.prefix(length))
                #expect(slice.withUnsafeBytes { crc32c(0, $0) } == RecordLayout.crc32c(slice), "\(name), \(length) bytes")
                let split = length / 3
                let continued = slice.withUnsafeBytes { all in
                    crc32c(crc32c(0, UnsafeRawBufferPointer(rebasing: all[..<split])), UnsafeRawBufferPointer(rebasing: all[split...]))
                }
                #expect(continued == RecordLayout.crc32c(slice), "\(name), \(length) bytes split at \(split)")
            }
        }
    }

    @Test func recordLayoutMatchesFormatOneByteForByte() throws {
        let id = try #require(UUID(uuidString: "01936B2E-1F2A-7B3C-8D4E-5F60718293A4"))
        let previous = [UInt8](repeating: 0xAB, count: 32)
        let (record, hash) = RecordCodec.encode(position: 0x0102_0304_0506_0708, id: id, stream: "todo-1", version: 3,
                                                type: "TodoCreated", timestampMilliseconds: 1_795_314_600_123,
                                                origin: "dev", data: Data(#"{"a":1}"#.utf8), previousHash: previous)
        #expect(record[0] == 1)                                  // format
        #expect(record[1] == 0)                                  // flags
        #expect(Array(record[6..<14]) == [1, 2, 3, 4, 5, 6, 7, 8])   // position, big-endian
        #expect(Array(record[14..<22]) == [0, 0, 0, 0, 0, 0, 0, 3])  // version
        #expect(Array(record[22..<30]) == withUnsafeBytes(of: Int64(1_795_314_600_123).bigEndian) { Array($0) })
        #expect(Array(record[30..<46]) == withUnsafeBytes(of: id.uuid) { Array($0) })
        #expect(Array(record[46..<78]) == hash)
        var tail: [UInt8] = [0, 6] + Array("todo-1".utf8) + [0, 11] + Array("TodoCreated".utf8) + [0, 3] + Array("dev".utf8)
        tail += [0, 0, 0, 7] + Array(#"{"a":1}"#.utf8)
        #expect(Array(record[78...]) == tail)
        #expect(record.count == 78 + tail.count)
        // The checksum: CRC-32C of bytes 6..<end, big-endian in bytes 2..<6.
        let crc = RecordLayout.crc32c(record[6...])
        #expect(Array(record[2..<6]) == [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        // The chain hash: SHA-256(previous hash ‖ bytes 6..<46 ‖ bytes 78..<end).
        #expect(record.withUnsafeBytes { RecordCodec.chainHash(of: $0, previousHash: previous) } == hash)
        #expect(record.withUnsafeBytes { RecordCodec.chainHash(of: $0, previousHash: RecordCodec.genesisHash) } != hash)
    }

    @Test func encodeThenDecodeRoundTrips() throws {
        let id = UUIDv7.make()
        let (record, hash) = RecordCodec.encode(position: 42, id: id, stream: "strøm-☃", version: 7, type: "Type",
                                                timestampMilliseconds: -1, origin: "o", data: Data("{}".utf8),
                                                previousHash: RecordCodec.genesisHash)
        let decoded = try record.withUnsafeBytes { try RecordCodec.decode($0, verifyChecksum: true) }
        #expect(decoded == RecordedEvent(position: 42, id: id, stream: "strøm-☃", version: 7, type: "Type",
                                         timestampMilliseconds: -1, origin: "o", data: Data("{}".utf8), hash: hash))
        #expect(record.withUnsafeBytes { RecordCodec.checksumMatches($0) })
        #expect(try record.withUnsafeBytes { try RecordCodec.decodeType($0) } == "Type")
    }

    @Test func aLaterSchemaVersionIsWrittenInFormatTwoRightAfterTheType() throws {
        let id = UUIDv7.make()
        let data = Data(#"{"name":"Émile"}"#.utf8)
        let (record, hash) = RecordCodec.encode(position: 9, id: id, stream: "tag-1", version: 1, type: "TagCreated",
                                                schemaVersion: 2, timestampMilliseconds: 5, origin: "dev", data: data,
                                                previousHash: RecordCodec.genesisHash)
        #expect(record[0] == 2)
        var tail: [UInt8] = [0, 5] + Array("tag-1".utf8) + [0, 10] + Array("TagCreated".utf8) + [0, 2] + [0, 3] + Array("dev".utf8)
        tail += [0, 0, 0, UInt8(data.count)] + Array(data)
        #expect(Array(record[78...]) == tail)
        let decoded = try record.withUnsafeBytes { try RecordCodec.decode($0, verifyChecksum: true) }
        #expect(decoded == RecordedEvent(position: 9, id: id, stream: "tag-1", version: 1, type: "TagCreated", schemaVersion: 2,
                                         timestampMilliseconds: 5, origin: "dev", data: data, hash: hash))
        // The hash covers the version: the same event at schema 1 chains differently.
        let (_, plain) = RecordCodec.encode(position: 9, id: id, stream: "tag-1", version: 1, type: "TagCreated",
                                            timestampMilliseconds: 5, origin: "dev", data: data, previousHash: RecordCodec.genesisHash)
        #expect(plain != hash)
        // Schema 0 is refused when read.
        var zero = record
        zero[78 + 2 + 5 + 2 + 10 + 1] = 0
        let crc = RecordLayout.crc32c(zero[6...])
        zero.replaceSubrange(2..<6, with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: RecordError.schemaVersionZero) { try zero.withUnsafeBytes { try RecordCodec.decode($0, verifyChecksum: true) } }
    }

    @Test func damagedRecordsThrowInsteadOfCrashing() {
        let (record, _) = RecordCodec.encode(position: 1, id: UUIDv7.make(), stream: "s", version: 1, type: "T",
                                             timestampMilliseconds: 0, origin: "o", data: Data(#"{"k":"v"}"#.utf8),
                                             previousHash: RecordCodec.genesisHash)
        func decode(_ bytes: [UInt8], verify: Bool = false) -> RecordError? {
            do {
                _ = try bytes.withUnsafeBytes { try RecordCodec.decode($0, verifyChecksum: verify) }
                return nil
            } catch {
                return error as? RecordError
            }
        }
        // Every truncation, and every extension, is an error.
        for length in 0..<record.count { #expect(decode(Array(record.prefix(length))) != nil) }
        #expect(decode(record + [0]) == .trailingBytes)
        var newer = record
        newer[0] = 3
        #expect(decode(newer) == .unsupportedFormat(3))
        var zero = record
        zero[0] = 0
        #expect(decode(zero) == .unsupportedFormat(0))
        var flipped = record
        flipped[record.count - 2] ^= 0x01
        #expect(decode(flipped) == nil)                   // reads do not pay for the checksum …
        #expect(decode(flipped, verify: true) == .checksum)   // … verification does
        var badText = record
        badText[80] = 0xFF                                // the stream name's only byte
        #expect(decode(badText) == .badText)
    }
}
