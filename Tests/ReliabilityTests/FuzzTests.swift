import ChronicleTestSupport
@testable import ChronicleLog
import ChronicleWire
import Foundation
import Testing

extension Reliability {
    /// Seeded fuzzing of the two decoders that meet untrusted bytes: the record decoder (bytes
    /// from disk) and the push decoder (bytes from the network). Each gets well over 100,000
    /// random and mutated inputs per run; the only acceptable outcomes are a value or the
    /// decoder's own error with a one-line message. The suite's time limit is the hang guard.
    @Suite("Fuzzing", .timeLimit(.minutes(10)))
    struct FuzzTests {
        static let recordInputs = 120_000
        static let pushInputs = 110_000

        // MARK: - Records

        /// A valid record with random content (UTF-8 of 1 to 4 bytes per character, payloads of 0 to 300 bytes).
        static func randomRecord(_ random: inout SeededGenerator, position: UInt64) -> [UInt8] {
            let alphabet = Array("abcXYZ-_09 é€𝄞\"\\{}")
            func text(_ range: ClosedRange<Int>) -> String {
                String((0..<Int.random(in: range, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            }
            var payload = "{\"k\":\"\(text(0...40).replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: "\"", with: ""))\"}"
            if Bool.random(using: &random) { payload = "{}" }
            let id = UUID(uuid: (UInt8.random(in: 0...255, using: &random), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                 UInt8.random(in: 0...255, using: &random)))
            return RecordCodec.encode(position: position, id: id, stream: "s-" + text(0...30), version: UInt64.random(in: 1...1000, using: &random),
                                      type: "T" + text(0...20), timestampMilliseconds: Int64.random(in: -1 << 40...1 << 42, using: &random),
                                      origin: text(0...40), data: Data(payload.utf8),
                                      previousHash: (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }).bytes
        }

        /// Decodes with and without the checksum; anything but a value or a `RecordError` fails the test
        /// (a crash ends the whole run, which fails it too).
        static func decodeBoth(_ bytes: [UInt8]) -> (plain: Result<RecordedEvent, RecordError>, checked: Result<RecordedEvent, RecordError>) {
            bytes.withUnsafeBytes { buffer in
                func attempt(_ verify: Bool) -> Result<RecordedEvent, RecordError> {
                    do throws(RecordError) { return .success(try RecordCodec.decode(buffer, verifyChecksum: verify)) } catch { return .failure(error) }
                }
                return (attempt(false), attempt(true))
            }
        }

        @Test("the record decoder: 120,000 random and mutated records, only values or clear errors")
        func recordDecoder() async throws {
            // A tight loop on a thread of its own: on Swift's cooperative threads it would starve
            // the other tests' servers and tasks for seconds. Findings come back as strings.
            let (failures, counts) = try await onThread(background: true) { Self.fuzzRecords() }
            #expect(failures.isEmpty, "\(failures.count) failures, the first: \(failures.prefix(5))")
            // The mutations reached every kind of error, not just one.
            #expect(counts.count >= 5, "\(counts)")
        }

        static func fuzzRecords() -> (failures: [String], counts: [String: Int]) {
            var failures: [String] = []
            var random = TestSeed.generator(for: "FuzzTests.fuzzRecords")
            let bases = (0..<256).map { Self.randomRecord(&random, position: UInt64($0) + 1) }
            var counts: [String: Int] = [:]
            for round in 0..<Self.recordInputs {
                let base = bases[round % bases.count]
                var bytes = base
                var flippedBits: Set<Int> = []
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<40:   // 1 to 5 distinct bit flips: CRC-32C detects every one of these
                    while flippedBits.count < Int.random(in: 1...5, using: &random) {
                        flippedBits.insert(Int.random(in: 0..<(bytes.count * 8), using: &random))
                    }
                    for bit in flippedBits { bytes[bit / 8] ^= UInt8(1) << UInt8(bit % 8) }
                case 40..<55:   // truncated or extended
                    if Bool.random(using: &random) {
                        bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
                    } else {
                        bytes += (0..<Int.random(in: 1...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    }
                case 55..<75:   // a length field set to an extreme or random value
                    // The stream length (at 78) or the type length (right after the stream).
                    let fields = [78, 80 + (Int(bytes[78]) << 8 | Int(bytes[79]))]
                    let offset = min(bytes.count - 2, fields.randomElement(using: &random)!)
                    let value: UInt16 = [0, 1, 0xFFFF, 0x7FFF, UInt16.random(in: 0...0xFFFF, using: &random)].randomElement(using: &random)!
                    bytes[offset] = UInt8(value >> 8)
                    bytes[offset + 1] = UInt8(truncatingIfNeeded: value)
                case 75..<90:   // random bytes of any length, sometimes with a plausible header
                    bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    if bytes.count > 2, Bool.random(using: &random) { bytes[0] = 1; bytes[1] = 0 }
                default:   // a run of bytes overwritten with a slice of another record
                    let other = bases.randomElement(using: &random)!
                    let start = Int.random(in: 0..<bytes.count, using: &random)
                    let length = Int.random(in: 1...min(64, bytes.count - start), using: &random)
                    let from = Int.random(in: 0..<(other.count - length + 1), using: &random)
                    bytes.replaceSubrange(start..<start + length, with: other[from..<from + length])
                }
                let (plain, checked) = Self.decodeBoth(bytes)
                switch checked {
                case .success(let event):
                    // Only the unchanged record passes the checksum: every byte but the format and
                    // flags is covered, and those two are checked by value.
                    if bytes != base { failures.append("round \(round): a damaged record passed the checksum (\(flippedBits.count) bits flipped)") }
                    if event.position != UInt64(round % bases.count) + 1 { failures.append("round \(round): wrong position") }
                case .failure(let error):
                    counts[String(describing: error).prefix(20).description, default: 0] += 1
                    if error.description.isEmpty || error.description.contains("\n") { failures.append("round \(round): \(error)") }
                }
                if case .failure = plain, case .success = checked { failures.append("round \(round): the checksum made a record decodable") }
            }
            return (failures, counts)
        }

        @Test("damaged records reach reads through LMDB as errors naming their position, never as wrong events")
        func damagedRecordsThroughTheLog() async throws {
            try await TemporaryFolder.with("fuzz-log") { root in
                let path = root + "/log"
                var originals: [RecordedEvent] = []
                do {
                    let log = try EventLog(path: path, options: .init(noSync: true))
                    for n in 0..<64 {
                        try await log.append(to: "s-\(n % 5)", events: [NewEvent(type: "E", data: Data(#"{"n":\#(n),"pad":"xxxxxxxx"}"#.utf8))])
                    }
                    originals = try log.read(after: 0, limit: 100)
                    log.close()
                }
                var random = TestSeed.generator(for: "FuzzTests.damagedLog")
                for round in 0..<4 {
                    // Damage every record but one, each its own way.
                    let spared = UInt64(round * 16 + 5)
                    try RawLog.with(path) { raw in
                        for position in 1...UInt64(64) where position != spared {
                            try raw.modifyRecord(at: position) { record in
                                switch Int.random(in: 0..<4, using: &random) {
                                case 0: record[Int.random(in: 2..<record.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                                case 1: record.removeLast(Int.random(in: 1...record.count, using: &random))
                                case 2: record.append(UInt8.random(in: 0...255, using: &random))
                                default: record[78] = 0xFF
                                }
                            }
                        }
                    }
                    let log = try EventLog(path: path)
                    for position in 1...UInt64(64) {
                        if position == spared {
                            #expect(try log.event(at: position) == originals[Int(position) - 1])
                            continue
                        }
                        do {
                            let event = try log.event(at: position)
                            Issue.record("round \(round): damaged record \(position) read as \(String(describing: event))")
                        } catch let error as EventLogError {
                            guard case .corruptRecord(let at, _) = error else {
                                Issue.record("round \(round): \(error)")
                                continue
                            }
                            #expect(at == position)
                        }
                    }
                    #expect(throws: EventLogError.self) { try log.read(after: 0, limit: 100) }
                    #expect(try log.verify().problem?.position == (spared == 1 ? 2 : 1))
                    log.close()
                    // Restore the originals for the next round.
                    try RawLog.with(path) { raw in
                        for event in originals {
                            let bytes = RecordCodec.encode(position: event.position, id: event.id, stream: event.stream, version: event.version,
                                                           type: event.type, timestampMilliseconds: event.timestampMilliseconds,
                                                           origin: event.origin, data: event.data,
                                                           previousHash: event.position == 1 ? RecordCodec.genesisHash : originals[Int(event.position) - 2].hash).bytes
                            try raw.modifyRecord(at: event.position) { $0 = bytes }
                        }
                    }
                }
            }
        }

        // MARK: - Push bodies

        /// A valid push body: 1 to 3 events with random text (escapes, non-ASCII) and a nested payload.
        static func randomPush(_ random: inout SeededGenerator) -> [UInt8] {
            let pieces = ["a", "Z", "0", " ", "é", "€", "𝄞", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud834\\udd1e", "/", "\\/"]
            func text(_ range: ClosedRange<Int>) -> String {
                (0..<Int.random(in: range, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            }
            func value(_ depth: Int) -> String {
                switch Int.random(in: 0..<(depth > 3 ? 4 : 7), using: &random) {
                case 0: return "\"\(text(0...6))\""
                case 1: return String(Int.random(in: -1000...1000, using: &random))
                case 2: return ["true", "false", "null", "1.5e3", "-0.25", "0"].randomElement(using: &random)!
                case 3: return "\"\""
                case 4: return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
                default:
                    return "{" + (0..<Int.random(in: 0...3, using: &random)).map { i in "\"k\(i)\(text(0...2))\": \(value(depth + 1))" }
                        .joined(separator: ",") + "}"
                }
            }
            let events = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                let id = UUID(uuid: (UInt8.random(in: 0...255, using: &random), 0xa2, 1, 2, 3, 4, 0x70, 5, 0x80, 6, 7, 8, 9, 10, 11,
                                     UInt8.random(in: 0...255, using: &random)))
                var members = [
                    "\"id\":\"\(id.uuidString.lowercased())\"", "\"stream\":\"todo-\(text(1...5))\"",
                    "\"version\":\(Int.random(in: 1...99, using: &random))", "\"type\":\"T\(text(0...4))\"",
                    "\"timestamp\":\"2026-11-22T02:30:0\(Int.random(in: 0...9, using: &random)).\(Int.random(in: 100...999, using: &random))Z\"",
                    "\"origin\":\"dev-\(text(0...4))\"",
                    "\"data\":{" + (0..<Int.random(in: 0...3, using: &random)).map { i in "\"f\(i)\":\(value(1))" }.joined(separator: ",") + "}",
                ]
                members.shuffle(using: &random)
                return "{" + members.joined(separator: Bool.random(using: &random) ? "," : " , ") + "}"
            }
            return Array("{\"device\":\"d-\(text(1...4))\",\"events\":[\(events.joined(separator: ","))]}".utf8)
        }

        /// Mutates a body the ways broken and hostile clients do.
        static func mutate(_ body: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
            var bytes = body
            let structural = Array("{}[],:\"\\ 0-+.eEtfnu".utf8)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<20:   // bit flips
                for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                }
            case 20..<35:   // a structural byte inserted
                bytes.insert(structural.randomElement(using: &random)!, at: Int.random(in: 0...bytes.count, using: &random))
            case 35..<45:   // a range deleted
                let start = Int.random(in: 0..<bytes.count, using: &random)
                bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...20, using: &random)))
            case 45..<55:   // truncated
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
            case 55..<63:   // a slice repeated (duplicate members, events, brackets)
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let slice = bytes[start..<min(bytes.count, start + Int.random(in: 1...80, using: &random))]
                bytes.insert(contentsOf: slice, at: Int.random(in: 0...bytes.count, using: &random))
            case 63..<73:   // invalid UTF-8: a stray byte, an overlong form, a surrogate, a cut sequence
                let bad: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0x00]]
                bytes.insert(contentsOf: bad.randomElement(using: &random)!, at: Int.random(in: 0...bytes.count, using: &random))
            case 73..<80:   // the version replaced by something a strict reader refuses
                let member = Array("\"version\":".utf8)
                if let start = (0...(bytes.count - member.count)).first(where: { bytes[$0..<$0 + member.count].elementsEqual(member) }) {
                    var end = start + member.count
                    while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
                    let replacement = ["-1", "0", "1.0", "1e2", "18446744073709551616", "99999999999999999999999", "01", "\"3\"", "NaN", ""]
                    bytes.replaceSubrange(start + member.count..<end, with: Array(replacement.randomElement(using: &random)!.utf8))
                }
            case 80..<88:   // deep nesting
                let depth = Int.random(in: 100...3000, using: &random)
                let open = Array(repeating: UInt8(ascii: Bool.random(using: &random) ? "[" : "{"), count: depth)
                bytes.insert(contentsOf: open, at: Int.random(in: 0...bytes.count, using: &random))
            case 88..<94:   // random bytes
                bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            default:   // random JSON-ish tokens
                bytes = (0..<Int.random(in: 0...60, using: &random)).flatMap { _ in
                    Array(["{", "}", "[", "]", ",", ":", "\"device\"", "\"events\"", "\"id\"", "\"data\"", "1", "\"x\"", "null", " "]
                        .randomElement(using: &random)!.utf8)
                }
            }
            return bytes
        }

        @Test("the push decoder: 110,000 random and mutated bodies, only values or clear errors")
        func pushDecoder() async throws {
            let (failures, accepted, refused) = try await onThread(background: true) { try Self.fuzzPushes() }
            #expect(failures.isEmpty, "\(failures.count) failures, the first: \(failures.prefix(5))")
            // Both outcomes occur: the mutations are neither all fatal nor all harmless.
            #expect(accepted > 1000 && refused > 50_000, "accepted \(accepted), refused \(refused)")
        }

        static func fuzzPushes() throws -> (failures: [String], accepted: Int, refused: Int) {
            var failures: [String] = []
            var random = TestSeed.generator(for: "FuzzTests.fuzzPushes")
            let bases = (0..<200).map { _ in Self.randomPush(&random) }
            var accepted = 0, refused = 0
            for base in bases {
                let push = try base.withUnsafeBytes { try WireEvent.decodePush($0) }   // every base is valid
                // A decoded push encodes back to bytes that decode to the same push.
                let events = push.events.map { RecordedEvent(position: 0, id: $0.id, stream: $0.stream, version: $0.version, type: $0.type,
                                                             timestampMilliseconds: $0.timestampMilliseconds, origin: $0.origin, data: $0.data) }
                if try WireEvent.decodePush(WirePush.encode(device: push.device, events: events)) != push {
                    failures.append("a valid push does not round-trip: \(String(decoding: base, as: UTF8.self))")
                }
            }
            for round in 0..<Self.pushInputs {
                let bytes = Self.mutate(bases[round % bases.count], &random)
                do {
                    let push = try bytes.withUnsafeBytes { buffer in try WireEvent.decodePush(buffer) }
                    accepted += 1
                    // What the strict decoder accepts is JSON that Foundation reads too, with the same device.
                    let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
                    if object?["device"] as? String != push.device {
                        failures.append("round \(round): accepted what Foundation does not read alike: \(String(decoding: bytes, as: UTF8.self))")
                    }
                } catch let error as WireEventError {
                    refused += 1
                    if error.message.isEmpty || error.message.contains("\n") { failures.append("round \(round): \(error.message)") }
                }
            }
            return (failures, accepted, refused)
        }
    }
}
