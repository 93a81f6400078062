import ChronicleWire
import ChronicleLog
import Foundation
import Testing

struct UUIDv7Tests {
    private func bytes(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }

    @Test func idsAreVersion7WithTheRFC9562Variant() {
        for _ in 0..<1_000 {
            let b = bytes(UUIDv7.make())
            #expect(b[6] >> 4 == 7)
            #expect(b[8] >> 6 == 0b10)
        }
    }

    @Test func idsOfGivenFieldsLayThemOut() {
        let b = bytes(UUIDv7.make(milliseconds: 0x0123_4567_89AB, sequence: 0xABC, random: 0xFFEE_DDCC_BBAA_9988))
        #expect(b == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0x7A, 0xBC, 0x88 & 0x3F | 0x80, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
    }

    @Test func idsIncreaseStrictlyEvenWithinOneMillisecond() {
        let now = Date()
        var previous = bytes(UUIDv7.make(now: now))
        for _ in 0..<20_000 {   // far more than the 12-bit counter holds for one millisecond
            let next = bytes(UUIDv7.make(now: now))
            #expect(previous.lexicographicallyPrecedes(next))
            previous = next
        }
    }

    @Test func theFirst48BitsAreTheUnixMillisecondsBigEndian() {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let b = bytes(UUIDv7.make())
        let milliseconds = b[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Never behind the clock; ahead of it only by what a burst of ids borrowed (a sanity bound, not a timing).
        #expect(milliseconds >= before)
        #expect(milliseconds < before + 60_000)
    }

    @Test func idsAreUnique() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 { seen.insert(UUIDv7.make()) }
        #expect(seen.count == 10_000)
    }
}

struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_795_314_600_123, "2026-11-22T02:30:00.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-86_400_000, "1969-12-31T00:00:00.000Z"),
        (1_709_164_800_001, "2024-02-29T00:00:00.001Z"),
    ])
    func formatsAndParsesBack(milliseconds: Int64, text: String) {
        #expect(Timestamp.format(milliseconds: milliseconds) == text)
        #expect(Timestamp.parse(text) == milliseconds)
    }

    @Test func parsesOtherFractionLengths() {
        #expect(Timestamp.parse("2026-11-22T02:30:00Z") == 1_795_314_600_000)
        #expect(Timestamp.parse("2026-11-22T02:30:00.1Z") == 1_795_314_600_100)
        #expect(Timestamp.parse("2026-11-22T02:30:00.12Z") == 1_795_314_600_120)
        // More than milliseconds would be cut: refused (docs/PROTOCOL.md), never rewritten.
        #expect(Timestamp.parse("2026-11-22T02:30:00.1234Z") == nil)
        #expect(Timestamp.parse("2026-11-22T02:30:00.123456Z") == nil)
    }

    @Test(arguments: ["", "2026-11-22", "2026-11-22T02:30:00.123", "2026-11-22T02:30:00.123+01:00", "2026-13-01T00:00:00Z",
                      "2026-11-22T24:00:00Z", "2026-11-22T02:60:00Z", "2026-11-22 02:30:00Z", "2026-11-22T02:30:00.Z",
                      "2026-11-2xT02:30:00Z", "2026-11-22T02:30:00.1234567890Z", "2026-02-29T00:00:00Z",
                      "2026-04-31T00:00:00Z", "2026-12-31T23:59:60Z"])
    func rejectsMalformedText(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func roundTripsEveryMillisecondPattern() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: 0...253_402_300_799_999, using: &generator)
            #expect(Timestamp.parse(Timestamp.format(milliseconds: milliseconds)) == milliseconds)
        }
    }
}

struct EventJSONTests {
    @Test func encodesTheSpecShapeWithThePayloadAsStored() throws {
        let id = try #require(UUID(uuidString: "01936B2E-1F2A-7B3C-8D4E-5F60718293A4"))
        let event = RecordedEvent(position: 7, id: id, stream: "todo-\"1\"\n", version: 2, type: "TodoCreated",
                                  timestampMilliseconds: 1_795_314_600_123, origin: "dev\u{1}", data: Data(#"{"b": 1, "a":[true]}"#.utf8))
        let json = EventJSON.encode(event)
        #expect(json == #"{"position":7,"id":"01936b2e-1f2a-7b3c-8d4e-5f60718293a4","stream":"todo-\"1\"\n","version":2,"type":"TodoCreated","timestamp":"2026-11-22T02:30:00.123Z","origin":"dev\u0001","data":{"b": 1, "a":[true]}}"#)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(decoded["stream"] as? String == "todo-\"1\"\n")
        #expect(decoded["origin"] as? String == "dev\u{1}")
        #expect(!EventJSON.encode(event, includePosition: false).contains("position"))
        #expect(EventJSON.encodeArray([]) == "[]")
        #expect(EventJSON.encodeArray([event, event]) == "[\(json),\(json)]")
    }

    @Test func quotesEveryASCIICharacterAndPassesTheRestThrough() throws {
        // Each ASCII character alone and between multi-byte characters, then text needing no escape.
        var texts = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        texts += (0..<0x80).map { "é\(UnicodeScalar(UInt8($0)))\u{1F600}" }
        texts += ["", "plain text", "Tödo ✓ 𝄞", String(repeating: "x", count: 10_000)]
        for text in texts {
            let quoted = EventJSON.quote(text)
            let parsed = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed)
            #expect(parsed as? String == text, "\(quoted)")
        }
        #expect(EventJSON.quote("a\"b\\c\nd\re\tf\u{1}g\u{1F}") == #""a\"b\\c\nd\re\tf\u0001g\u001f""#)
        #expect(EventJSON.quote("\u{7F}é") == "\"\u{7F}é\"")
    }
}

struct ExpectedVersionTests {
    @Test func satisfaction() {
        #expect(ExpectedVersion.any.isSatisfied(byActual: 0))
        #expect(ExpectedVersion.any.isSatisfied(byActual: 9))
        #expect(ExpectedVersion.noStream.isSatisfied(byActual: 0))
        #expect(!ExpectedVersion.noStream.isSatisfied(byActual: 1))
        #expect(ExpectedVersion.exact(3).isSatisfied(byActual: 3))
        #expect(!ExpectedVersion.exact(3).isSatisfied(byActual: 2))
        #expect(!ExpectedVersion.exact(0).isSatisfied(byActual: 1))
        #expect(ExpectedVersion.exact(0).isSatisfied(byActual: 0))
    }
}
