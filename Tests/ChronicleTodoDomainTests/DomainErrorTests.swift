import Foundation
import Testing
import ChronicleTodoDomain

struct DomainErrorTests {
    static let id = UUID(uuidString: "1F0E5C2A-0000-4000-8000-00000000ABCD")!
    static let tag = UUID(uuidString: "CCCCCCCC-0000-4000-8000-000000000003")!

    @Test(arguments: [
        (DomainError.emptyName, "name must not be empty"),
        (.nameTooLong(201), "name must be at most 200 characters (got 201)"),
        (.ageOutOfRange(-1), "age must be between 0 and 150 (got -1)"),
        (.emptyTitle, "title must not be empty"),
        (.titleTooLong(501), "title must be at most 500 characters (got 501)"),
        (.invalidDate("2026-02-30"), "invalid date '2026-02-30': expected a real calendar day as YYYY-MM-DD"),
        (.nothingToUpdate, "nothing to update: give at least one field to change"),
        (.unknownUser(id), "unknown user 1f0e5c2a-0000-4000-8000-00000000abcd"),
        (.userDeleted(id), "user 1f0e5c2a-0000-4000-8000-00000000abcd is deleted"),
        (.unknownTodo(id), "unknown todo 1f0e5c2a-0000-4000-8000-00000000abcd"),
        (.todoDeleted(id), "todo 1f0e5c2a-0000-4000-8000-00000000abcd is deleted"),
        (.alreadyCompleted(id), "todo 1f0e5c2a-0000-4000-8000-00000000abcd is already completed"),
        (.notCompleted(id), "todo 1f0e5c2a-0000-4000-8000-00000000abcd is not completed"),
        (.invalidEvent("unknown event type 'X'"), "invalid event: unknown event type 'X'"),
        (.emptyTagName, "tag name must not be empty"),
        (.tagNameTooLong(51), "tag name must be at most 50 characters (got 51)"),
        (.invalidColor("#12345"), "invalid color '#12345': expected '#' and six hex digits, like #1a2b3c"),
        (.invalidColor("red\nblue"), "invalid color 'red?blue': expected '#' and six hex digits, like #1a2b3c"),
        (.duplicateTagName("Work"), "a tag named 'Work' already exists"),
        (.unknownTag(id), "unknown tag 1f0e5c2a-0000-4000-8000-00000000abcd"),
        (.tagDeleted(id), "tag 1f0e5c2a-0000-4000-8000-00000000abcd is deleted"),
        (.alreadyTagged(todo: id, tag: tag),
         "todo 1f0e5c2a-0000-4000-8000-00000000abcd already has tag cccccccc-0000-4000-8000-000000000003"),
        (.notTagged(todo: id, tag: tag),
         "todo 1f0e5c2a-0000-4000-8000-00000000abcd does not have tag cccccccc-0000-4000-8000-000000000003"),
    ])
    func describesItselfInOneActionableLine(error: DomainError, message: String) {
        #expect(error.description == message)
        #expect("\(error)" == message)
    }

    @Test func equalityComparesPayloads() {
        #expect(DomainError.ageOutOfRange(1) != .ageOutOfRange(2))
        #expect(DomainError.unknownUser(Self.id) != .unknownTodo(Self.id))
        #expect(DomainError.invalidDate("a") == .invalidDate("a"))
        #expect(DomainError.alreadyTagged(todo: Self.id, tag: Self.tag) != .alreadyTagged(todo: Self.tag, tag: Self.id))
        #expect(DomainError.unknownTag(Self.id) != .unknownTodo(Self.id))
    }
}
