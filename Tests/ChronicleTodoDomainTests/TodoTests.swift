import Foundation
import Testing
import ChronicleTodoDomain

struct TodoTests {
    let id = UUID(uuidString: "AAAAAAAA-0000-4000-8000-000000000001")!
    let owner = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!
    let tagA = UUID(uuidString: "0CCCCCCC-0000-4000-8000-000000000003")!
    let tagB = UUID(uuidString: "CCCCCCCC-0000-4000-8000-000000000004")!

    @Test func encodesAbsentUserIdAndMemoAsExplicitNull() throws {
        let todo = Todo(id: id, title: "Pay rent", deadline: day("2026-03-01"))
        let data = try JSONEncoder().encode(todo)
        let object = try jsonObject(data)
        #expect(Set(object.keys) == ["id", "title", "deadline", "userId", "memo", "isCompleted", "tags"])
        #expect(object["memo"] is NSNull)
        #expect(object["userId"] is NSNull)
        #expect(try jsonString(todo)
            == #"{"deadline":"2026-03-01","id":"aaaaaaaa-0000-4000-8000-000000000001","isCompleted":false,"memo":null,"tags":[],"title":"Pay rent","userId":null}"#)
    }

    @Test func encodesPresentFieldsWithLowercaseIds() throws {
        let todo = Todo(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: owner,
                        memo: "bank", isCompleted: true)
        #expect(try jsonString(todo)
            == #"{"deadline":"2026-03-01","id":"aaaaaaaa-0000-4000-8000-000000000001","isCompleted":true,"memo":"bank","tags":[],"title":"Pay rent","userId":"bbbbbbbb-0000-4000-8000-000000000002"}"#)
    }

    @Test func encodesTagsAsLowercaseIdsInTheirOrder() throws {
        let todo = Todo(id: id, title: "t", deadline: day("2026-03-01"), tags: [tagA, tagB])
        #expect(try jsonString(todo)
            == #"{"deadline":"2026-03-01","id":"aaaaaaaa-0000-4000-8000-000000000001","isCompleted":false,"memo":null,"tags":["0ccccccc-0000-4000-8000-000000000003","cccccccc-0000-4000-8000-000000000004"],"title":"t","userId":null}"#)
    }

    @Test func decodesTagsInEitherCaseAndTreatsAbsentOrNullAsNone() throws {
        let listed = #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":false,"tags":["0CCCCCCC-0000-4000-8000-000000000003","cccccccc-0000-4000-8000-000000000004"]}"#
        #expect(try JSONDecoder().decode(Todo.self, from: Data(listed.utf8)).tags == [tagA, tagB])
        let null = #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":false,"tags":null}"#
        #expect(try JSONDecoder().decode(Todo.self, from: Data(null.utf8)).tags == [])
    }

    @Test func sortedTagIDsOrdersByLowercaseString() {
        let upperF = UUID(uuidString: "F0000000-0000-4000-8000-000000000000")!
        let lowerA = UUID(uuidString: "a0000000-0000-4000-8000-000000000000")!
        #expect(Todo.sortedTagIDs([upperF, tagB, lowerA, tagA]) == [tagA, lowerA, tagB, upperF])
        #expect(Todo.sortedTagIDs(Set([tagB, tagA])) == [tagA, tagB])
        #expect(Todo.sortedTagIDs([]) == [])
    }

    @Test(arguments: [
        Todo(id: UUID(), title: "a", deadline: day("2026-03-01")),
        Todo(id: UUID(), title: "b", deadline: day("2024-02-29"), userId: UUID(), memo: "m\n\"q\"", isCompleted: true),
        Todo(id: UUID(), title: "c", deadline: day("2026-03-01"), tags: [UUID(), UUID()]),
    ])
    func roundTripsThroughJSON(todo: Todo) throws {
        #expect(try JSONDecoder().decode(Todo.self, from: JSONEncoder().encode(todo)) == todo)
    }

    @Test func decodesWithUserIdAndMemoAbsentOrUppercase() throws {
        let absent = #"{"id":"AAAAAAAA-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":false}"#
        let decoded = try JSONDecoder().decode(Todo.self, from: Data(absent.utf8))
        #expect(decoded == Todo(id: id, title: "t", deadline: day("2026-03-01")))
        let upper = #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","userId":"BBBBBBBB-0000-4000-8000-000000000002","memo":null,"isCompleted":true}"#
        #expect(try JSONDecoder().decode(Todo.self, from: Data(upper.utf8)).userId == owner)
    }

    @Test(arguments: [
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-02-30","isCompleted":false}"#,
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","userId":"x","isCompleted":false}"#,
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01"}"#,
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":"yes"}"#,
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":false,"tags":["x"]}"#,
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":false,"tags":"x"}"#,
        #"{"id":"aaaaaaaa-0000-4000-8000-000000000001","title":"t","deadline":"2026-03-01","isCompleted":false,"tags":[null]}"#,
    ])
    func decodingRejectsMalformedTodos(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Todo.self, from: Data(json.utf8)) }
    }

    @Test func memberwiseDefaultsDescribeANewOpenUnownedTodo() {
        let todo = Todo(id: id, title: "t", deadline: day("2026-03-01"))
        #expect(todo.userId == nil)
        #expect(todo.memo == nil)
        #expect(todo.isCompleted == false)
        #expect(todo.tags == [])
    }
}
