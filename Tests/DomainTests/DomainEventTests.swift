import Foundation
import Testing
import Domain

struct DomainEventTests {
    static let id = UUID(uuidString: "1F0E5C2A-0000-4000-8000-00000000ABCD")!
    static let owner = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!
    static let userStream = "user-1f0e5c2a-0000-4000-8000-00000000abcd"
    static let todoStream = "todo-1f0e5c2a-0000-4000-8000-00000000abcd"

    /// Every event type with its exact wire form.
    static let wireForms: [(event: DomainEvent, type: String, stream: String, data: String)] = [
        (.userCreated(id: id, name: "Ada", age: 36), "UserCreated", userStream, #"{"age":36,"name":"Ada"}"#),
        (.userUpdated(id: id, name: "Ada L.", age: 37), "UserUpdated", userStream, #"{"age":37,"name":"Ada L."}"#),
        (.userUpdated(id: id, name: nil, age: 0), "UserUpdated", userStream, #"{"age":0}"#),
        (.userUpdated(id: id, name: "B", age: nil), "UserUpdated", userStream, #"{"name":"B"}"#),
        (.userDeleted(id: id), "UserDeleted", userStream, "{}"),
        (.todoCreated(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: owner, memo: "bank"),
         "TodoCreated", todoStream,
         #"{"deadline":"2026-03-01","memo":"bank","title":"Pay rent","userId":"bbbbbbbb-0000-4000-8000-000000000002"}"#),
        (.todoCreated(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: nil, memo: nil),
         "TodoCreated", todoStream, #"{"deadline":"2026-03-01","title":"Pay rent"}"#),
        (.todoUpdated(id: id, title: "T", deadline: day("2024-02-29"), memo: ""),
         "TodoUpdated", todoStream, #"{"deadline":"2024-02-29","memo":"","title":"T"}"#),
        (.todoUpdated(id: id, title: nil, deadline: day("2024-02-29"), memo: nil),
         "TodoUpdated", todoStream, #"{"deadline":"2024-02-29"}"#),
        (.todoCompleted(id: id), "TodoCompleted", todoStream, "{}"),
        (.todoReopened(id: id), "TodoReopened", todoStream, "{}"),
        (.todoDeleted(id: id), "TodoDeleted", todoStream, "{}"),
    ]

    @Test func allTypesListsTheEightWireNames() {
        #expect(DomainEvent.allTypes == [
            "UserCreated", "UserUpdated", "UserDeleted",
            "TodoCreated", "TodoUpdated", "TodoCompleted", "TodoReopened", "TodoDeleted",
        ])
        #expect(Set(Self.wireForms.map(\.type)) == Set(DomainEvent.allTypes))
    }

    @Test func encodesTheExactWireForm() {
        for form in Self.wireForms {
            #expect(form.event.type == form.type)
            #expect(form.event.stream == form.stream)
            #expect(form.event.entityID == Self.id)
            #expect(String(decoding: form.event.encodedData(), as: UTF8.self) == form.data, "\(form.type)")
        }
    }

    @Test func keySetsMatchTheSpec() throws {
        func keys(_ event: DomainEvent) throws -> Set<String> { Set(try jsonObject(event.encodedData()).keys) }
        let day = day("2026-03-01")
        #expect(try keys(.userCreated(id: Self.id, name: "n", age: 1)) == ["name", "age"])
        #expect(try keys(.userUpdated(id: Self.id, name: nil, age: 1)) == ["age"])
        #expect(try keys(.userDeleted(id: Self.id)).isEmpty)
        #expect(try keys(.todoCreated(id: Self.id, title: "t", deadline: day, userId: nil, memo: nil))
            == ["title", "deadline"])
        #expect(try keys(.todoCreated(id: Self.id, title: "t", deadline: day, userId: Self.owner, memo: nil))
            == ["title", "deadline", "userId"])
        #expect(try keys(.todoCreated(id: Self.id, title: "t", deadline: day, userId: nil, memo: "m"))
            == ["title", "deadline", "memo"])
        #expect(try keys(.todoUpdated(id: Self.id, title: nil, deadline: nil, memo: "m")) == ["memo"])
        #expect(try keys(.todoCompleted(id: Self.id)).isEmpty)
        #expect(try keys(.todoReopened(id: Self.id)).isEmpty)
        #expect(try keys(.todoDeleted(id: Self.id)).isEmpty)
    }

    @Test func decodesEveryWireFormBack() throws {
        for form in Self.wireForms {
            let decoded = try DomainEvent(type: form.type, stream: form.stream, data: Data(form.data.utf8))
            #expect(decoded == form.event)
        }
    }

    @Test func streamsUseLowercaseIds() {
        #expect(DomainEvent.userStream(Self.id) == Self.userStream)
        #expect(DomainEvent.todoStream(Self.id) == Self.todoStream)
    }

    @Test(arguments: [
        "", "plain", "quote \" backslash \\ slash /", "line\nbreak\r\ttab", "\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}",
        "émoji 👩‍👩‍👧 and \u{2028}\u{2029}", "</script>", "{\"name\":\"x\"}",
    ])
    func stringsWithAnyCharactersRoundTripAsValidJSON(text: String) throws {
        let events: [DomainEvent] = [
            .userCreated(id: Self.id, name: text, age: 1),
            .todoCreated(id: Self.id, title: text, deadline: day("2026-03-01"), userId: nil, memo: text),
            .todoUpdated(id: Self.id, title: nil, deadline: nil, memo: text),
        ]
        for event in events {
            let data = event.encodedData()
            let object = try jsonObject(data)
            #expect(object.values.contains { ($0 as? String) == text })
            #expect(try DomainEvent(type: event.type, stream: event.stream, data: data) == event)
        }
    }

    @Test func escapesControlCharactersExactly() {
        let event = DomainEvent.userUpdated(id: Self.id, name: "a\"\\\n\u{1}", age: nil)
        #expect(String(decoding: event.encodedData(), as: UTF8.self) == #"{"name":"a\"\\\n\u0001"}"#)
    }

    // MARK: - Lenient decoding

    @Test func decodingAcceptsUppercaseUserIdNullOptionalsAndUnknownKeys() throws {
        let data = #"{"title":"t","deadline":"2026-03-01","userId":"BBBBBBBB-0000-4000-8000-000000000002","memo":null,"extra":[1]}"#
        let event = try DomainEvent(type: "TodoCreated", stream: Self.todoStream, data: Data(data.utf8))
        #expect(event == .todoCreated(id: Self.id, title: "t", deadline: day("2026-03-01"), userId: Self.owner, memo: nil))
        #expect(try DomainEvent(type: "UserDeleted", stream: Self.userStream, data: Data(#"{"why":"x"}"#.utf8))
            == .userDeleted(id: Self.id))
        #expect(try DomainEvent(type: "UserDeleted", stream: Self.userStream, data: Data(" { } ".utf8))
            == .userDeleted(id: Self.id))
    }

    // MARK: - Rejections

    @Test(arguments: ["UserRenamed", "usercreated", "", "User Created", "UserCreated ", "TodoCompleted\u{0}"])
    func rejectsUnknownTypes(type: String) throws {
        let error = try decodeError(type: type, stream: Self.userStream, data: "{}")
        #expect(error.description.contains("unknown event type"))
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
    ])
    func rejectsNonCanonicalStreams(type: String, stream: String) throws {
        let error = try decodeError(type: type, stream: stream, data: "{}")
        #expect(error.description.contains("stream"))
    }

    @Test(arguments: [
        ("UserCreated", #"{"age":36}"#, "missing 'name'"),
        ("UserCreated", #"{"name":"Ada"}"#, "missing 'age'"),
        ("UserCreated", #"{"name":"Ada","age":"36"}"#, "'age' must be an integer"),
        ("UserCreated", #"{"name":"Ada","age":36.5}"#, "'age'"),
        ("UserCreated", #"{"name":"Ada","age":true}"#, "'age'"),
        ("UserCreated", #"{"name":"Ada","age":1e400}"#, "UserCreated data"),
        ("UserCreated", #"{"name":5,"age":36}"#, "'name' must be a string"),
        ("UserCreated", #"{"name":null,"age":36}"#, "'name' must not be null"),
        ("UserUpdated", #"{"age":[1]}"#, "'age'"),
        ("UserUpdated", #"[]"#, "must be a JSON object"),
        ("UserDeleted", #"[]"#, "must be a JSON object"),
        ("UserDeleted", #""text""#, "must be a JSON object"),
        ("UserDeleted", "", "not valid JSON"),
        ("TodoCompleted", "{", "not valid JSON"),
        ("TodoCompleted", "null", "UserDeleted"),
        ("TodoCreated", #"{"title":"t"}"#, "missing 'deadline'"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-02-30"}"#, "'deadline' is invalid"),
        ("TodoCreated", #"{"title":"t","deadline":20260301}"#, "'deadline'"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-03-01","userId":"nope"}"#, "'userId' is invalid"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-03-01","userId":7}"#, "'userId'"),
        ("TodoCreated", #"{"title":"t","deadline":"2026-03-01","memo":{}}"#, "'memo'"),
        ("TodoUpdated", #"{"deadline":"2026-1-05"}"#, "'deadline' is invalid"),
        ("TodoUpdated", #"{"title":false}"#, "'title' must be a string"),
    ])
    func rejectsMalformedData(type: String, data: String, mentioning: String) throws {
        let stream = type.hasPrefix("User") ? Self.userStream : Self.todoStream
        let error = try decodeError(type: type, stream: stream, data: data)
        // "UserDeleted" stands for "any message": `null` is rejected, how exactly is Foundation's business.
        if mentioning != "UserDeleted" {
            #expect(error.description.contains(mentioning), "\(error)")
        }
        #expect(error.description.hasPrefix("invalid event: \(type)"), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    @Test func rejectsInvalidUTF8() throws {
        let bytes = Data([0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D])
        #expect(throws: DomainError.self) {
            try DomainEvent(type: "UserUpdated", stream: Self.userStream, data: bytes)
        }
    }

    // MARK: - Fuzzing

    /// Thousands of random and mutated inputs: decoding either succeeds with an
    /// event that survives its own round trip, or fails with one clean line.
    @Test func neverCrashesOnRandomOrMutatedInput() throws {
        var random = SeededGenerator(seed: 0xF00D_5EED)
        let validData = Self.wireForms.map { Data($0.data.utf8) }
        let alphabet = Array(#"{}[]":,0123456789.-+eE truefalsnul\"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        var accepted = 0
        var rejected = 0

        for round in 0..<5_000 {
            let form = Self.wireForms[Int.random(in: 0..<Self.wireForms.count, using: &random)]
            var type = form.type
            var stream = form.stream
            var data: [UInt8]
            switch round % 4 {
            case 0:
                data = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 1:
                data = (0..<Int.random(in: 0..<64, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            default:
                data = Array(validData.randomElement(using: &random)!)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    mutate(&data, alphabet: alphabet, using: &random)
                }
            }
            if round % 17 == 0 { type = DomainEvent.allTypes.randomElement(using: &random)! }
            if round % 23 == 0 {
                var bytes = Array(stream.utf8)
                mutate(&bytes, alphabet: alphabet, using: &random)
                stream = String(decoding: bytes, as: UTF8.self)
            }

            do {
                let event = try DomainEvent(type: type, stream: stream, data: Data(data))
                accepted += 1
                #expect(event.type == type)
                #expect(event.stream == stream)
                let again = try DomainEvent(type: event.type, stream: event.stream, data: event.encodedData())
                #expect(again == event)
            } catch {
                rejected += 1
                guard case .invalidEvent(let reason) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                #expect(!reason.isEmpty)
                #expect(!reason.contains("\n"), "\(reason)")
            }
        }
        // The mix must exercise both outcomes, or the loop proves nothing.
        #expect(accepted > 100)
        #expect(rejected > 1_000)
    }

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

    private func decodeError(
        type: String, stream: String, data: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DomainError {
        do {
            let event = try DomainEvent(type: type, stream: stream, data: Data(data.utf8))
            Issue.record("decoded \(event) instead of failing", sourceLocation: sourceLocation)
            return .nothingToUpdate
        } catch {
            guard case .invalidEvent = error else {
                Issue.record("expected invalidEvent, got \(error)", sourceLocation: sourceLocation)
                return error
            }
            return error
        }
    }
}
