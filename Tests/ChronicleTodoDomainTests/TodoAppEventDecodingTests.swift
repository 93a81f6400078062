import ChronicleTestSupport
import Foundation
import Testing
import ChronicleTodoDomain

/// `TodoAppEvent(type:stream:data:)` against hostile input: it must reject
/// everything that is not exactly a well-formed event, with one clear line,
/// and never trap.
struct TodoAppEventDecodingTests {
    static let id = UUID(uuidString: "1F0E5C2A-0000-4000-8000-00000000ABCD")!
    static let owner = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!
    static let userStream = TodoAppEvent.userStream(id)
    static let todoStream = TodoAppEvent.todoStream(id)
    static let tagStream = TodoAppEvent.tagStream(id)
    static let tag = UUID(uuidString: "CCCCCCCC-0000-4000-8000-000000000003")!

    // MARK: - Accepted variations

    @Test func acceptsUppercaseUserIdNullOptionalsUnknownKeysAndWhitespace() throws {
        let data = #" { "title" : "t" , "deadline":"2026-03-01","userId":"BBBBBBBB-0000-4000-8000-000000000002","memo":null,"extra":[1,{"a":[]}]}"# + "\n"
        let event = try TodoAppEvent(type: "TodoCreated", stream: Self.todoStream, data: Data(data.utf8))
        #expect(event == .todoCreated(id: Self.id, title: "t", deadline: day("2026-03-01"), userId: Self.owner, memo: nil))
        #expect(try TodoAppEvent(type: "UserDeleted", stream: Self.userStream, data: Data(#"{"why":"x"}"#.utf8))
            == .userDeleted(id: Self.id))
        #expect(try TodoAppEvent(type: "UserUpdated", stream: Self.userStream, data: Data("{}".utf8))
            == .userUpdated(id: Self.id, name: nil, age: nil))
    }

    /// A stored event is a fact: colour and name rules are not re-checked.
    @Test func acceptsTagEventsWithoutReValidatingNameOrColor() throws {
        #expect(try TodoAppEvent(type: "TagCreated", stream: Self.tagStream,
                                data: Data(#"{"name":"","color":"red","extra":1}"#.utf8))
            == .tagCreated(id: Self.id, name: "", color: "red"))
        #expect(try TodoAppEvent(type: "TagUpdated", stream: Self.tagStream, data: Data(#"{"name":null}"#.utf8))
            == .tagUpdated(id: Self.id, name: nil, color: nil))
        #expect(try TodoAppEvent(type: "TagDeleted", stream: Self.tagStream, data: Data(#"{"why":"x"}"#.utf8))
            == .tagDeleted(id: Self.id))
        #expect(try TodoAppEvent(type: "TodoUntagged", stream: Self.todoStream,
                                data: Data(#"{"tagId":"cccccccc-0000-4000-8000-000000000003","x":null}"#.utf8))
            == .todoUntagged(id: Self.id, tagId: Self.tag))
    }

    @Test func decodesEveryStandardEscape() throws {
        let data = #"{"name":"\"\\\/\b\f\n\r\t\u00e9\u0000\ud83d\ude00"}"#
        let event = try TodoAppEvent(type: "UserUpdated", stream: Self.userStream, data: Data(data.utf8))
        #expect(event == .userUpdated(id: Self.id, name: "\"\\/\u{8}\u{C}\n\r\té\u{0}😀", age: nil))
    }

    @Test(arguments: [("0", 0), ("-0", 0), ("150", 150), ("-1", -1), ("9223372036854775807", Int.max)])
    func decodesIntegerLiterals(literal: String, value: Int) throws {
        let event = try TodoAppEvent(type: "UserUpdated", stream: Self.userStream, data: Data(#"{"age":\#(literal)}"#.utf8))
        #expect(event == .userUpdated(id: Self.id, name: nil, age: value))
    }

    // MARK: - Type and stream

    @Test(arguments: ["UserRenamed", "usercreated", "", "User Created", "UserCreated ", "TodoCompleted\u{0}"])
    func rejectsUnknownTypes(type: String) {
        expectInvalid(type: type, stream: Self.userStream, data: "{}", mentioning: "unknown event type")
    }

    @Test(arguments: [
        ("UserCreated", "todo-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TodoDeleted", "user-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("UserDeleted", "user-1F0E5C2A-0000-4000-8000-00000000ABCD"),
        ("UserDeleted", "user-"),
        ("UserDeleted", ""),
        ("UserDeleted", "user-not-a-uuid"),
        ("UserDeleted", "user-1f0e5c2a-0000-4000-8000-00000000abcd "),
        ("UserDeleted", "User-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("UserDeleted", "user_1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TodoDeleted", "todo-1f0e5c2a00004000800000000000abcd"),
        ("TodoDeleted", "todo-\n"),
        ("TagCreated", "todo-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TagDeleted", "tag-1F0E5C2A-0000-4000-8000-00000000ABCD"),
        ("TagDeleted", "tags-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TagDeleted", "tag-"),
        ("TagUpdated", "user-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TodoTagged", "tag-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TodoUntagged", "tag-1f0e5c2a-0000-4000-8000-00000000abcd"),
        ("TodoDeleted", "tag-1f0e5c2a-0000-4000-8000-00000000abcd"),
    ])
    func rejectsNonCanonicalStreams(type: String, stream: String) {
        expectInvalid(type: type, stream: stream, data: "{}", mentioning: "\(type) stream")
    }

    // MARK: - Fields

    @Test(arguments: [
        ("UserCreated", #"{"age":36}"#, "is missing 'name'"),
        ("UserCreated", #"{"name":"Ada"}"#, "is missing 'age'"),
        ("UserCreated", #"{"name":"Ada","age":"36"}"#, "'age' must be an integer (got a string)"),
        ("UserCreated", #"{"name":"Ada","age":36.0}"#, "'age' must be an integer (got \"36.0\")"),
        ("UserCreated", #"{"name":"Ada","age":36e0}"#, "'age' must be an integer"),
        ("UserCreated", #"{"name":"Ada","age":true}"#, "'age' must be an integer (got a boolean)"),
        ("UserCreated", #"{"name":"Ada","age":99999999999999999999}"#, "'age' must be a 64-bit integer"),
        ("UserCreated", #"{"name":"Ada","age":1e400}"#, "is not valid JSON: number too large for a 64-bit float"),
        ("UserCreated", #"{"name":5,"age":36}"#, "'name' must be a string (got a number)"),
        ("UserCreated", #"{"name":null,"age":36}"#, "is missing 'name'"),
        ("UserUpdated", #"{"age":[1]}"#, "'age' must be an integer (got an array)"),
        ("UserUpdated", #"{"name":{}}"#, "'name' must be a string (got an object)"),
        ("TodoCreated", #"{"title":"t"}"#, "is missing 'deadline'"),
        ("TodoCreated", #"{"deadline":"2026-03-01"}"#, "is missing 'title'"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-02-30"}"#, "'deadline' must be a real calendar day"),
        ("TodoCreated", #"{"title":"t","deadline":20260301}"#, "'deadline' must be a string"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-03-01","userId":"nope"}"#, "'userId' must be a UUID (got \"nope\")"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-03-01","userId":7}"#, "'userId' must be a string"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-03-01","memo":false}"#, "'memo' must be a string"),
        ("TodoUpdated", #"{"deadline":"2026-1-05"}"#, "'deadline' must be a real calendar day"),
        ("TodoUpdated", #"{"title":false}"#, "'title' must be a string (got a boolean)"),
        ("TagCreated", ##"{"color":"#000000"}"##, "is missing 'name'"),
        ("TagCreated", #"{"name":"Work"}"#, "is missing 'color'"),
        ("TagCreated", #"{"name":"Work","color":null}"#, "is missing 'color'"),
        ("TagCreated", #"{"name":"Work","color":123456}"#, "'color' must be a string (got a number)"),
        ("TagCreated", ##"{"name":["Work"],"color":"#000000"}"##, "'name' must be a string (got an array)"),
        ("TagUpdated", #"{"color":true}"#, "'color' must be a string (got a boolean)"),
        ("TagUpdated", #"{"name":{}}"#, "'name' must be a string (got an object)"),
        ("TodoTagged", "{}", "is missing 'tagId'"),
        ("TodoTagged", #"{"tagId":null}"#, "'tagId' must be a string"),
        ("TodoTagged", #"{"tagId":7}"#, "'tagId' must be a string"),
        ("TodoTagged", #"{"tagId":"nope"}"#, "'tagId' must be a lowercase UUID (got \"nope\")"),
        ("TodoTagged", #"{"tagId":"CCCCCCCC-0000-4000-8000-000000000003"}"#,
         "'tagId' must be a lowercase UUID (got \"CCCCCCCC-0000-4000-8000-000000000003\")"),
        ("TodoTagged", #"{"tagId":"cccccccc-0000-4000-8000-00000000000C"}"#, "'tagId' must be a lowercase UUID"),
        ("TodoTagged", #"{"tagId":"cccccccc00004000800000000000000c"}"#, "'tagId' must be a lowercase UUID"),
        ("TodoTagged", #"{"tagId":" cccccccc-0000-4000-8000-000000000003"}"#, "'tagId' must be a lowercase UUID"),
        ("TodoUntagged", "{}", "is missing 'tagId'"),
        ("TodoUntagged", #"{"tagId":"{cccccccc-0000-4000-8000-000000000003}"}"#, "'tagId' must be a lowercase UUID"),
    ])
    func rejectsMissingOrMistypedFields(type: String, data: String, mentioning: String) {
        let stream = type.hasPrefix("User") ? Self.userStream : type.hasPrefix("Tag") ? Self.tagStream : Self.todoStream
        expectInvalid(type: type, stream: stream, data: data, mentioning: "\(type) data \(mentioning)")
    }

    // MARK: - JSON syntax

    @Test(arguments: [
        ("[]", "must be a JSON object (got an array)"),
        (#""text""#, "must be a JSON object (got a string)"),
        ("null", "must be a JSON object (got null)"),
        ("42", "must be a JSON object (got a number)"),
        ("", "is not valid JSON: unexpected end of data"),
        ("{", "is not valid JSON: unexpected end of data"),
        (#"{"a":1,}"#, "is not valid JSON: unexpected '}' at byte 7"),
        (#"{"a":1}x"#, "is not valid JSON: unexpected 'x' at byte 7"),
        (#"{"a":1}{}"#, "is not valid JSON"),
        (#"{"a":[1,]}"#, "is not valid JSON"),
        (#"{'a':1}"#, "is not valid JSON"),
        (#"{a:1}"#, "is not valid JSON"),
        (#"{"a":01}"#, "is not valid JSON"),
        (#"{"a":+1}"#, "is not valid JSON"),
        (#"{"a":.5}"#, "is not valid JSON"),
        (#"{"a":1.}"#, "is not valid JSON"),
        (#"{"a":1e}"#, "is not valid JSON"),
        (#"{"a":-}"#, "is not valid JSON"),
        (#"{"a":tru}"#, "is not valid JSON"),
        (#"{"a":nul}"#, "is not valid JSON"),
        (#"{"a":NaN}"#, "is not valid JSON"),
        (#"{"a":0x10}"#, "is not valid JSON"),
        (#"/*c*/{}"#, "is not valid JSON"),
        (#"{"a":"\x"}"#, "is not valid JSON: invalid escape at byte 6"),
        (#"{"a":"\u12"}"#, "is not valid JSON"),
        (#"{"a":"\ud800"}"#, "is not valid JSON: unpaired surrogate escape"),
        (#"{"a":"\udc00"}"#, "is not valid JSON: unpaired surrogate escape"),
        (#"{"a":"\ud800\u0041"}"#, "is not valid JSON: unpaired surrogate escape"),
        ("{\"a\":\"tab\there\"}", "is not valid JSON: control character in string at byte 9"),
        ("{\"a\":\"line\nbreak\"}", "is not valid JSON: control character in string"),
        ("\u{FEFF}{}", "is not valid JSON"),
        (#"{"age":1,"age":2}"#, #"is not valid JSON: duplicate key "age" at byte 9"#),
        (#"{"x":{"k":1,"k":1}}"#, #"is not valid JSON: duplicate key "k""#),
    ])
    func rejectsAnythingButOneStrictJSONObject(data: String, mentioning: String) {
        expectInvalid(type: "UserUpdated", stream: Self.userStream, data: data, mentioning: "UserUpdated data \(mentioning)")
    }

    @Test(arguments: [
        [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
    ] as [[UInt8]])
    func rejectsInvalidUTF8EvenInIgnoredKeys(sequence: [UInt8]) {
        let bytes = Array(#"{"ignored":""#.utf8) + sequence + Array(#""}"#.utf8)
        expectInvalid(type: "UserDeleted", stream: Self.userStream, bytes: bytes,
                      mentioning: "UserDeleted data is not valid JSON: invalid UTF-8 at byte 12")
    }

    @Test func rejectsDeepNestingWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        expectInvalid(type: "UserDeleted", stream: Self.userStream, data: #"{"x":\#(deep)}"#,
                      mentioning: "nested deeper than 128 levels")
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        expectInvalid(type: "UserDeleted", stream: Self.userStream, data: objects, mentioning: "nested deeper than 128 levels")
    }

    @Test func quotesUntrustedTextOnOneBoundedLine() throws {
        let type = "Evil\nType" + String(repeating: "x", count: 500)
        let error = try #require(decodeError(type: type, stream: "", bytes: []))
        #expect(!error.description.contains("\n"))
        #expect(error.description.count < 150)
    }

    // MARK: - Fuzzing

    /// Thousands of random and mutated inputs: decoding either succeeds with an
    /// event that survives its own round trip, or fails with one clean line.
    @Test func neverTrapsOnRandomOrMutatedInput() throws {
        var random = TestSeed.generator(for: "TodoAppEventDecodingTests.fuzz")
        let valid: [TodoAppEvent] = [
            .userCreated(id: Self.id, name: "Ada \"the\" \\ first\n", age: 36),
            .userUpdated(id: Self.id, name: "é😀", age: 0),
            .userDeleted(id: Self.id),
            .todoCreated(id: Self.id, title: "Pay rent", deadline: day("2026-03-01"), userId: Self.owner, memo: "m"),
            .todoUpdated(id: Self.id, title: nil, deadline: day("2024-02-29"), memo: ""),
            .todoCompleted(id: Self.id), .todoReopened(id: Self.id), .todoDeleted(id: Self.id),
            .tagCreated(id: Self.id, name: "Wörk", color: "#1a2b3c"),
            .tagUpdated(id: Self.id, name: nil, color: "#ffffff"),
            .tagDeleted(id: Self.id),
            .todoTagged(id: Self.id, tagId: Self.tag), .todoUntagged(id: Self.id, tagId: Self.tag),
        ]
        let alphabet = Array(#"{}[]":,0123456789.-+eE truefalsnul\u"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF, 0xED]
        var accepted = 0
        var rejected = 0

        for round in 0..<6_000 {
            let template = valid.randomElement(using: &random)!
            var type = template.type
            var stream = template.stream
            var bytes: [UInt8]
            switch round % 4 {
            case 0:
                bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 1:
                bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            default:
                bytes = Array(template.encodedData())
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    mutate(&bytes, alphabet: alphabet, using: &random)
                }
            }
            if round % 17 == 0 { type = TodoAppEvent.allTypes.randomElement(using: &random)! }
            if round % 23 == 0 {
                var streamBytes = Array(stream.utf8)
                mutate(&streamBytes, alphabet: alphabet, using: &random)
                stream = String(decoding: streamBytes, as: UTF8.self)
            }

            do {
                let event = try TodoAppEvent(type: type, stream: stream, data: Data(bytes))
                accepted += 1
                #expect(event.type == type)
                #expect(event.stream == stream)
                let again = try TodoAppEvent(type: event.type, stream: event.stream, data: event.encodedData())
                #expect(again == event)
            } catch {
                rejected += 1
                guard case .invalidEvent(let reason) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                #expect(!reason.isEmpty && !reason.contains("\n"), "\(reason)")
            }
        }
        // The mix must exercise both outcomes, or the loop proves nothing.
        #expect(accepted > 150)
        #expect(rejected > 2_000)
    }

    // MARK: - Helpers

    private func mutate(_ bytes: inout [UInt8], alphabet: [UInt8], using random: inout SeededGenerator) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where !bytes.isEmpty: bytes.remove(at: position)
        case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
        case 2 where !bytes.isEmpty: bytes[position] = alphabet.randomElement(using: &random)!
        default:
            if !bytes.isEmpty { bytes.swapAt(position, Int.random(in: 0..<bytes.count, using: &random)) }
        }
    }

    private func expectInvalid(
        type: String, stream: String, data: String, mentioning: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectInvalid(type: type, stream: stream, bytes: Array(data.utf8), mentioning: mentioning,
                      sourceLocation: sourceLocation)
    }

    private func expectInvalid(
        type: String, stream: String, bytes: [UInt8], mentioning: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = decodeError(type: type, stream: stream, bytes: bytes, sourceLocation: sourceLocation) else {
            return
        }
        #expect(error.description.contains(mentioning), "\(error)", sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
    }

    /// The invalidEvent error decoding throws; records an issue and returns nil otherwise.
    private func decodeError(
        type: String, stream: String, bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) -> DomainError? {
        do {
            let event = try TodoAppEvent(type: type, stream: stream, data: Data(bytes))
            Issue.record("decoded \(event) instead of failing", sourceLocation: sourceLocation)
            return nil
        } catch {
            guard case .invalidEvent = error else {
                Issue.record("expected invalidEvent, got \(error)", sourceLocation: sourceLocation)
                return nil
            }
            return error
        }
    }
}
