import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import Testing

@Suite("Wire event decoding")
struct WireEventTests {
    static let id = "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"

    static func event(_ members: String = "") -> String {
        #"{"id":"\#(id)","stream":"todo-1","version":1,"type":"TodoCreated","timestamp":"2026-11-22T02:30:00.123Z","origin":"dev","data":{"title":"Milk"}\#(members)}"#
    }

    static func push(_ events: String...) -> Data {
        Data(#"{"device":"dev","events":[\#(events.joined(separator: ","))]}"#.utf8)
    }

    @Test("the encoder's output decodes to the same event")
    func roundTrip() throws {
        let event = RecordedEvent(position: 42, id: UUID(), stream: "todo-\u{1F600}-\"quoted\"\n", version: 7, type: "Tödo\\Created",
                                  timestampMilliseconds: 1_795_314_600_123, origin: "device-1",
                                  data: Data(#"{ "title" : "Milk\u00e9 \ud83d\ude00", "n": [1, -2.5e3, true, null, {}] }"#.utf8))
        let decoded = try WireEvent.decodeRecorded(Data(EventJSON.encode(event).utf8))
        #expect(decoded == event)
        let foreign = try WireEvent.decodeForeign(Data(EventJSON.encode(event, includePosition: false).utf8))
        #expect(foreign == ForeignEvent(id: event.id, stream: event.stream, version: 7, type: event.type,
                                        timestampMilliseconds: event.timestampMilliseconds, origin: "device-1", data: event.data))
    }

    @Test("a schema version above 1 travels as \"schemaVersion\", last; version 1 keeps the event's first shape")
    func schemaVersion() throws {
        var event = RecordedEvent(position: 3, id: UUID(), stream: "tag-1", version: 1, type: "TagCreated",
                                  timestampMilliseconds: 1, origin: "dev", data: Data(#"{"name":"A"}"#.utf8))
        #expect(!EventJSON.encode(event).contains("schemaVersion"))
        event.schemaVersion = 2
        let json = EventJSON.encode(event)
        #expect(json.hasSuffix(#""data":{"name":"A"},"schemaVersion":2}"#))
        #expect(try WireEvent.decodeRecorded(Data(json.utf8)) == event)
        #expect(try WireEvent.decodeForeign(Data(EventJSON.encode(event, includePosition: false).utf8)).schemaVersion == 2)
        #expect(try WireEvent.decodePush(Self.push(Self.event())).events[0].schemaVersion == 1)
    }

    @Test("the payload keeps its exact bytes")
    func payloadBytes() throws {
        let push = try WireEvent.decodePush(Self.push(Self.event().replacingOccurrences(of: #"{"title":"Milk"}"#,
                                                                                       with: "{ \"a\" :\t[ 1 ,2 ] }")))
        #expect(push.device == "dev")
        #expect(push.events.count == 1)
        #expect(push.events[0].data == Data("{ \"a\" :\t[ 1 ,2 ] }".utf8))
        #expect(push.events[0].timestampMilliseconds == Timestamp.parse("2026-11-22T02:30:00.123Z"))
    }

    @Test("a push body made by WirePush.encode decodes back")
    func pushRoundTrip() throws {
        let events = (1...3).map { n in
            RecordedEvent(position: UInt64(n), id: UUID(), stream: "s", version: UInt64(n), type: "T",
                          timestampMilliseconds: Int64(n), origin: "o", data: Data(#"{"n":\#(n)}"#.utf8))
        }
        let push = try WireEvent.decodePush(WirePush.encode(device: "phone", events: events))
        #expect(push.device == "phone")
        #expect(push.events.map(\.id) == events.map(\.id))
        #expect(push.events.map(\.data) == events.map(\.data))
    }

    static func replacing(_ old: String, _ new: String) -> String { event().replacingOccurrences(of: old, with: new) }

    static let refusals: [(json: String, message: String)] = {
        var cases: [(json: String, message: String)] = []
        cases.append((replacing(#""version":1"#, #""version":0"#), #"events[0]: "version" must be a positive integer"#))
        cases.append((replacing(#""version":1"#, #""version":1.5"#), #"events[0]: "version" must be a positive integer"#))
        cases.append((replacing(#""version":1"#, #""version":"1""#), #"events[0]: "version" must be a positive integer"#))
        cases.append((replacing(#""version":1"#, #""version":-1"#), #"events[0]: "version" must be a positive integer"#))
        cases.append((replacing(#""version":1"#, #""version":18446744073709551616"#), #"events[0]: "version" is larger than 9223372036854775807"#))
        cases.append((replacing(#""version":1"#, #""version":9223372036854775808"#), #"events[0]: "version" is larger than 9223372036854775807"#))
        cases.append((replacing(id, "not-a-uuid"), #"events[0]: "id" must be a UUID"#))
        cases.append((replacing("2026-11-22T02:30:00.123Z", "yesterday"), #"events[0]: "timestamp" must be UTC ISO 8601 like 2026-11-22T02:30:00.123Z"#))
        cases.append((replacing(#"{"title":"Milk"}"#, #"["Milk"]"#), #"events[0]: "data" must be a JSON object"#))
        cases.append((replacing(#"{"title":"Milk"}"#, #""{}""#), #"events[0]: "data" must be a JSON object"#))
        cases.append((replacing(#""stream":"todo-1""#, #""stream":"""#), "events[0]: invalid event: stream name must not be empty"))
        cases.append((replacing(#""type":"TodoCreated""#, #""type":"""#), #"events[0]: "type" must be a non-empty string of at most 256 bytes"#))
        cases.append((replacing(#""origin":"dev""#, #""origin":"\#(String(repeating: "o", count: 257))""#), #"events[0]: "origin" must be a non-empty string of at most 256 bytes"#))
        cases.append((replacing(#","origin":"dev""#, ""), #"events[0]: missing "origin""#))
        cases.append((event(#","extra":1"#), #"events[0]: unknown member "extra" (expected "id", "stream", "version", "type", "timestamp", "origin", "data", "schemaVersion")"#))
        cases.append((event(#","schemaVersion":0"#), #"events[0]: "schemaVersion" must be a positive integer"#))
        cases.append((event(#","schemaVersion":65536"#), #"events[0]: "schemaVersion" must be at most 65535"#))
        cases.append((event(#","schemaVersion":1"#), #"events[0]: "schemaVersion" 1 is the default: leave the member out"#))
        cases.append((event(#","schemaVersion":2,"schemaVersion":2"#), #"events[0]: "schemaVersion" appears twice"#))
        cases.append((event(#","type":"Again""#), #"events[0]: "type" appears twice"#))
        cases.append((event(#","position":3"#), #"events[0]: a pushed event carries no "position" (the server assigns its own)"#))
        return cases
    }()

    @Test("refused events name the member at fault", arguments: refusals)
    func refusedEvent(refusal: (json: String, message: String)) {
        let (json, message) = refusal
        #expect(throws: WireEventError(message)) { try WireEvent.decodePush(Self.push(json)) }
    }

    @Test("malformed JSON is refused, never a crash", arguments: [
        #"{"title":}"#, #"{"title":"Milk",}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":1e}"#, #"{"a":tru}"#,
        #"{"a":"\x"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00\ud800"}"#, "{\"a\":\"\u{01}\"}", #"{"a":[1,2}"#, #"{"a" 1}"#,
        #"{a:1}"#, #"{"a":"unterminated}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#, #"{"a":'x'}"#,
    ])
    func malformedPayload(payload: String) throws {
        let body = Self.push(Self.event().replacingOccurrences(of: #"{"title":"Milk"}"#, with: payload))
        let error = try #require(throws: WireEventError.self) { try WireEvent.decodePush(body) }
        #expect(error.message.hasPrefix("events[0]: invalid JSON"))
        #expect(!error.message.contains("\n"))
    }

    @Test("a key given twice anywhere in the data is refused, as the domain refuses it", arguments: [
        (#"{"title":"Milk","title":"Eggs"}"#, #"duplicate key "title""#),
        (#"{"a":{"k":1,"k":2}}"#, #"duplicate key "k""#),
        (#"{"a":[{"k":1,"\u006b":2}]}"#, #"duplicate key "k""#),
    ])
    func duplicateKeysInData(payload: String, mentioning: String) throws {
        let body = Self.push(Self.event().replacingOccurrences(of: #"{"title":"Milk"}"#, with: payload))
        let error = try #require(throws: WireEventError.self) { try WireEvent.decodePush(body) }
        #expect(error.message.hasPrefix("events[0]: invalid JSON: "))
        #expect(error.message.contains(mentioning))
    }

    @Test("invalid UTF-8 is refused", arguments: [
        [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xFF], [0xF0, 0x80, 0x80, 0x80],
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        var body = Data(#"{"device":"d"#.utf8)
        body.append(contentsOf: bytes)
        body.append(Data(#"","events":[]}"#.utf8))
        #expect(throws: WireEventError.self) { try WireEvent.decodePush(body) }
    }

    @Test("deep nesting is refused without exhausting the stack")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let body = Self.push(Self.event().replacingOccurrences(of: #"{"title":"Milk"}"#, with: #"{"a":\#(deep)}"#))
        let error = try #require(throws: WireEventError.self) { try WireEvent.decodePush(body) }
        #expect(error.message.contains("nested deeper than 128 levels"))
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) {
            try WireEvent.decodePush(Self.push(Self.event().replacingOccurrences(of: #"{"title":"Milk"}"#, with: #"{"a":\#(fine)}"#)))
        }
    }

    @Test("escapes decode in names and strings")
    func escapes() throws {
        let json = Self.event().replacingOccurrences(of: #""stream":"todo-1""#, with: #""str\u0065am":"a\"b\\c\/d\n\u00e9\ud83d\ude00""#)
        let event = try WireEvent.decodePush(Self.push(json)).events[0]
        #expect(event.stream == "a\"b\\c/d\né\u{1F600}")
    }

    @Test("a pull page decodes; positions are required there")
    func page() throws {
        let good = Data(#"{"events":[\#(Self.event(#","position":9"#))],"lastPosition":9}"#.utf8)
        let page = try WireEvent.decodePage(good)
        #expect(page.lastPosition == 9)
        #expect(page.events.map(\.position) == [9])
        let missing = Data(#"{"events":[\#(Self.event())],"lastPosition":9}"#.utf8)
        #expect(throws: WireEventError(#"events[0]: missing "position""#)) { try WireEvent.decodePage(missing) }
    }

    /// Random truncations and byte changes of valid bodies: the decoder never crashes, and what it
    /// accepts as a payload Foundation's parser accepts as a JSON object too.
    @Test("fuzzed bodies never crash and accepted payloads are JSON objects")
    func fuzz() throws {
        var random = TestSeed.generator(for: "WireEventTests.fuzz")
        let base = Array(Self.push(
            Self.event().replacingOccurrences(of: #"{"title":"Milk"}"#,
                                              with: #"{"t":"a\"b\u00e9","n":[1,-2.5e+3,0.25,true,false,null,{"x":{}}],"é":"ü"}"#),
            Self.event().replacingOccurrences(of: Self.id, with: "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c")))
        let alphabet = Array(#"{}[]":,.-+0123456789eEtrufalsn\ u"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]
        var accepted = 0
        for iteration in 0..<20_000 {
            var bytes = base
            switch iteration % 3 {
            case 0:
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 1:
                for _ in 0...(random.next() % 3) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
            default:
                let at = Int(random.next() % UInt64(bytes.count))
                if random.next() % 2 == 0 {
                    bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                } else {
                    bytes.remove(at: at)
                }
            }
            guard let push = try? WireEvent.decodePush(Data(bytes)) else { continue }
            accepted += 1
            for event in push.events {
                let object = try? JSONSerialization.jsonObject(with: event.data)
                #expect(object is [String: Any], "accepted a payload Foundation refuses: \(String(decoding: event.data, as: UTF8.self))")
            }
        }
        #expect(accepted > 0)
    }

    @Test("decoding speed (informational)")
    func speed() throws {
        let events = (0..<10_000).map { (n: Int) -> RecordedEvent in
            RecordedEvent(position: UInt64(n + 1), id: UUID(), stream: "todo-\(n % 100)", version: UInt64(n / 100 + 1),
                          type: "TodoCreated", timestampMilliseconds: 1_795_314_600_123 + Int64(n), origin: "device",
                          data: Data(#"{"title":"todo number \#(n)","deadline":"2026-12-01","userId":null}"#.utf8))
        }
        let body = WirePush.encode(device: "device", events: events)
        let started = ContinuousClock.now
        let push = try WireEvent.decodePush(body)
        let elapsed = ContinuousClock.now - started
        #expect(push.events.count == 10_000)
        print("decoded 10000 wire events (\(body.count) bytes) in \(elapsed) (debug build)")
    }
}


@Suite("Push acknowledgements")
struct WireAcknowledgementTests {
    @Test("an acknowledgement made by encode decodes back")
    func roundTrip() throws {
        let ack = WireAcknowledgement(accepted: 3, duplicates: 2, lastPosition: 40)
        #expect(try WireEvent.decodeAcknowledgement(Data(ack.encode().utf8)) == ack)
    }

    @Test("an acknowledgement that breaks the protocol is refused, naming what is wrong", arguments: [
        (#"{"accepted":1,"duplicates":0}"#, "missing \"lastPosition\""),
        (#"{"accepted":1,"lastPosition":1}"#, "missing \"duplicates\""),
        (#"{"accepted":1,"duplicates":0,"lastPosition":1,"accepted":1}"#, "accepted"),
        (#"{"accepted":1,"duplicates":0,"lastPosition":1,"note":"x"}"#, "note"),
        (#"{"accepted":-1,"duplicates":0,"lastPosition":1}"#, "accepted"),
        (#"{"accepted":1.0,"duplicates":0,"lastPosition":1}"#, "accepted"),
        (#"{"accepted":"1","duplicates":0,"lastPosition":1}"#, "accepted"),
        (#"{"accepted":5,"duplicates":0,"lastPosition":4}"#, "below"),
        (#"{"accepted":1,"duplicates":0,"lastPosition":1} x"#, "unexpected 'x' at byte 47"),
        (#"[1,0,1]"#, "object"),
    ])
    func refused(body: String, naming: String) {
        #expect {
            _ = try WireEvent.decodeAcknowledgement(Data(body.utf8))
        } throws: { error in
            (error as? WireEventError)?.message.contains(naming) == true
        }
    }
}
