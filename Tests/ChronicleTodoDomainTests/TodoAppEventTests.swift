import Foundation
import Testing
import ChronicleTodoDomain
import ChronicleTestSupport

struct TodoAppEventTests {
    static let id = UUID(uuidString: "1F0E5C2A-0000-4000-8000-00000000ABCD")!
    static let owner = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!
    static let userStream = "user-1f0e5c2a-0000-4000-8000-00000000abcd"
    static let todoStream = "todo-1f0e5c2a-0000-4000-8000-00000000abcd"
    static let tagStream = "tag-1f0e5c2a-0000-4000-8000-00000000abcd"
    static let tag = UUID(uuidString: "CCCCCCCC-0000-4000-8000-000000000003")!

    /// Every event type with its exact wire form.
    static let wireForms: [(event: TodoAppEvent, type: String, stream: String, data: String)] = [
        (.userCreated(id: id, name: "Ada", age: 36), "UserCreated", userStream, #"{"age":36,"name":"Ada"}"#),
        (.userUpdated(id: id, name: "Ada L.", age: 37), "UserUpdated", userStream, #"{"age":37,"name":"Ada L."}"#),
        (.userUpdated(id: id, name: nil, age: 0), "UserUpdated", userStream, #"{"age":0}"#),
        (.userUpdated(id: id, name: "B", age: nil), "UserUpdated", userStream, #"{"name":"B"}"#),
        (.userDeleted(id: id), "UserDeleted", userStream, "{}"),
        (.userRestored(id: id), "UserRestored", userStream, "{}"),
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
        (.todoRestored(id: id), "TodoRestored", todoStream, "{}"),
        (.tagCreated(id: id, name: "Work", color: "#1a2b3c"), "TagCreated", tagStream,
         ##"{"color":"#1a2b3c","name":"Work"}"##),
        (.tagUpdated(id: id, name: "Job", color: "#ffffff"), "TagUpdated", tagStream,
         ##"{"color":"#ffffff","name":"Job"}"##),
        (.tagUpdated(id: id, name: nil, color: "#000000"), "TagUpdated", tagStream, ##"{"color":"#000000"}"##),
        (.tagUpdated(id: id, name: "Job", color: nil), "TagUpdated", tagStream, #"{"name":"Job"}"#),
        (.tagDeleted(id: id), "TagDeleted", tagStream, "{}"),
        (.tagRestored(id: id), "TagRestored", tagStream, "{}"),
        (.todoTagged(id: id, tagId: tag), "TodoTagged", todoStream,
         #"{"tagId":"cccccccc-0000-4000-8000-000000000003"}"#),
        (.todoUntagged(id: id, tagId: tag), "TodoUntagged", todoStream,
         #"{"tagId":"cccccccc-0000-4000-8000-000000000003"}"#),
    ]

    @Test func allTypesListsTheSixteenWireNames() {
        #expect(TodoAppEvent.allTypes == [
            "UserCreated", "UserUpdated", "UserDeleted", "UserRestored",
            "TodoCreated", "TodoUpdated", "TodoCompleted", "TodoReopened", "TodoDeleted", "TodoRestored",
            "TagCreated", "TagUpdated", "TagDeleted", "TagRestored", "TodoTagged", "TodoUntagged",
        ])
        #expect(Set(Self.wireForms.map(\.type)) == Set(TodoAppEvent.allTypes))
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
        func keys(_ event: TodoAppEvent) throws -> Set<String> { Set(try jsonObject(event.encodedData()).keys) }
        let deadline = day("2026-03-01")
        #expect(try keys(.userCreated(id: Self.id, name: "n", age: 1)) == ["name", "age"])
        #expect(try keys(.userUpdated(id: Self.id, name: nil, age: 1)) == ["age"])
        #expect(try keys(.userDeleted(id: Self.id)).isEmpty)
        #expect(try keys(.todoCreated(id: Self.id, title: "t", deadline: deadline, userId: nil, memo: nil))
            == ["title", "deadline"])
        #expect(try keys(.todoCreated(id: Self.id, title: "t", deadline: deadline, userId: Self.owner, memo: nil))
            == ["title", "deadline", "userId"])
        #expect(try keys(.todoCreated(id: Self.id, title: "t", deadline: deadline, userId: nil, memo: "m"))
            == ["title", "deadline", "memo"])
        #expect(try keys(.todoUpdated(id: Self.id, title: nil, deadline: nil, memo: "m")) == ["memo"])
        #expect(try keys(.todoCompleted(id: Self.id)).isEmpty)
        #expect(try keys(.todoReopened(id: Self.id)).isEmpty)
        #expect(try keys(.todoDeleted(id: Self.id)).isEmpty)
        #expect(try keys(.tagCreated(id: Self.id, name: "n", color: "#000000")) == ["name", "color"])
        #expect(try keys(.tagUpdated(id: Self.id, name: "n", color: nil)) == ["name"])
        #expect(try keys(.tagUpdated(id: Self.id, name: nil, color: "#000000")) == ["color"])
        #expect(try keys(.tagDeleted(id: Self.id)).isEmpty)
        #expect(try keys(.todoTagged(id: Self.id, tagId: Self.tag)) == ["tagId"])
        #expect(try keys(.todoUntagged(id: Self.id, tagId: Self.tag)) == ["tagId"])
    }

    @Test func taggingIsAboutTheTodo() {
        #expect(TodoAppEvent.todoTagged(id: Self.id, tagId: Self.tag).entityID == Self.id)
        #expect(TodoAppEvent.todoUntagged(id: Self.id, tagId: Self.tag).stream == Self.todoStream)
    }

    @Test func decodesEveryWireFormBack() throws {
        for form in Self.wireForms {
            let decoded = try TodoAppEvent(type: form.type, stream: form.stream, data: Data(form.data.utf8))
            #expect(decoded == form.event)
        }
    }

    @Test func streamsUseLowercaseIds() {
        #expect(TodoAppEvent.userStream(Self.id) == Self.userStream)
        #expect(TodoAppEvent.todoStream(Self.id) == Self.todoStream)
        #expect(TodoAppEvent.tagStream(Self.id) == Self.tagStream)
    }

    @Test(arguments: [
        "", "plain", "quote \" backslash \\ slash /", "line\nbreak\r\ttab", "\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}",
        "émoji 👩‍👩‍👧 and \u{2028}\u{2029}", "</script>", "{\"name\":\"x\"}",
    ])
    func stringsWithAnyCharactersRoundTripAsValidJSON(text: String) throws {
        let events: [TodoAppEvent] = [
            .userCreated(id: Self.id, name: text, age: 1),
            .todoCreated(id: Self.id, title: text, deadline: day("2026-03-01"), userId: nil, memo: text),
            .todoUpdated(id: Self.id, title: nil, deadline: nil, memo: text),
            .tagCreated(id: Self.id, name: text, color: text),
            .tagUpdated(id: Self.id, name: text, color: nil),
        ]
        for event in events {
            let data = event.encodedData()
            let object = try jsonObject(data)
            #expect(object.values.contains { ($0 as? String) == text })
            #expect(try TodoAppEvent(type: event.type, stream: event.stream, data: data) == event)
        }
    }

    @Test func escapesControlCharactersExactly() {
        let event = TodoAppEvent.userUpdated(id: Self.id, name: "a\"\\\n\u{1}", age: nil)
        #expect(String(decoding: event.encodedData(), as: UTF8.self) == #"{"name":"a\"\\\n\u0001"}"#)
    }
}
