import Foundation
import Testing
import ChronicleTodoDomain

struct TodoCommandsTests {
    let id = uuid(10)
    let ownerID = uuid(1)
    var owner: UserAggregate { userAggregate(.userCreated(id: ownerID, name: "Ada", age: 36)) }
    var open: TodoAggregate {
        todoAggregate(.todoCreated(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: nil, memo: nil))
    }
    var completed: TodoAggregate {
        var aggregate = open
        aggregate.apply(.todoCompleted(id: id))
        return aggregate
    }
    var deleted: TodoAggregate {
        var aggregate = open
        aggregate.apply(.todoDeleted(id: id))
        return aggregate
    }
    let tagID = uuid(30)
    var liveTag: TagAggregate { tagAggregate(.tagCreated(id: tagID, name: "Work", color: "#1a2b3c")) }
    var deletedTag: TagAggregate {
        tagAggregate(.tagCreated(id: tagID, name: "Work", color: "#1a2b3c"), .tagDeleted(id: tagID))
    }
    var tagged: TodoAggregate {
        var aggregate = open
        aggregate.apply(.todoTagged(id: id, tagId: tagID))
        return aggregate
    }

    // MARK: - create

    @Test func createTrimsTheTitleAndParsesTheDeadline() throws {
        let event = try TodoCommands.create(
            id: id, title: "  Pay rent\n", deadline: "2024-02-29", userId: ownerID, owner: owner, memo: " as is ")
        #expect(event == .todoCreated(
            id: id, title: "Pay rent", deadline: day("2024-02-29"), userId: ownerID, memo: " as is "))
    }

    @Test func createWithoutUserIgnoresOwner() throws {
        let event = try TodoCommands.create(
            id: id, title: "t", deadline: "2026-03-01", userId: nil, owner: nil, memo: nil)
        #expect(event == .todoCreated(id: id, title: "t", deadline: day("2026-03-01"), userId: nil, memo: nil))
    }

    @Test(arguments: ["", "  ", "\n\t"])
    func createRejectsEmptyTitles(title: String) {
        #expect(throws: DomainError.emptyTitle) {
            try TodoCommands.create(id: id, title: title, deadline: "2026-03-01", userId: nil, owner: nil, memo: nil)
        }
    }

    @Test func titleLengthLimitIs500Characters() throws {
        let atLimit = String(repeating: "t", count: 500)
        #expect(try TodoCommands.create(
            id: id, title: atLimit, deadline: "2026-03-01", userId: nil, owner: nil, memo: nil)
            == .todoCreated(id: id, title: atLimit, deadline: day("2026-03-01"), userId: nil, memo: nil))
        #expect(throws: DomainError.titleTooLong(501)) {
            try TodoCommands.create(
                id: id, title: atLimit + "t", deadline: "2026-03-01", userId: nil, owner: nil, memo: nil)
        }
    }

    @Test(arguments: ["2026-02-30", "2025-02-29", "2026-1-05", "tomorrow"])
    func createRejectsInvalidDeadlines(deadline: String) {
        #expect(throws: DomainError.invalidDate(deadline)) {
            try TodoCommands.create(id: id, title: "t", deadline: deadline, userId: nil, owner: nil, memo: nil)
        }
    }

    @Test func createRequiresALiveOwnerWhenUserIdIsGiven() {
        #expect(throws: DomainError.unknownUser(ownerID)) {
            try TodoCommands.create(id: id, title: "t", deadline: "2026-03-01", userId: ownerID, owner: nil, memo: nil)
        }
        #expect(throws: DomainError.unknownUser(ownerID)) {
            try TodoCommands.create(
                id: id, title: "t", deadline: "2026-03-01", userId: ownerID, owner: UserAggregate(), memo: nil)
        }
        let otherOwner = userAggregate(.userCreated(id: uuid(2), name: "Bob", age: 40))
        #expect(throws: DomainError.unknownUser(ownerID)) {
            try TodoCommands.create(
                id: id, title: "t", deadline: "2026-03-01", userId: ownerID, owner: otherOwner, memo: nil)
        }
        var deletedOwner = owner
        deletedOwner.apply(.userDeleted(id: ownerID))
        #expect(throws: DomainError.userDeleted(ownerID)) {
            try TodoCommands.create(
                id: id, title: "t", deadline: "2026-03-01", userId: ownerID, owner: deletedOwner, memo: nil)
        }
    }

    // MARK: - update

    @Test func updateCarriesOnlyTheGivenFields() throws {
        #expect(try TodoCommands.update(open, id: id, title: nil, deadline: "2026-03-02", memo: nil)
            == .todoUpdated(id: id, title: nil, deadline: day("2026-03-02"), memo: nil))
        #expect(try TodoCommands.update(open, id: id, title: " New ", deadline: nil, memo: "m")
            == .todoUpdated(id: id, title: "New", deadline: nil, memo: "m"))
        #expect(try TodoCommands.update(completed, id: id, title: nil, deadline: nil, memo: "")
            == .todoUpdated(id: id, title: nil, deadline: nil, memo: ""))
    }

    @Test func updateValidates() {
        #expect(throws: DomainError.nothingToUpdate) {
            try TodoCommands.update(open, id: id, title: nil, deadline: nil, memo: nil)
        }
        #expect(throws: DomainError.emptyTitle) {
            try TodoCommands.update(open, id: id, title: " ", deadline: nil, memo: nil)
        }
        #expect(throws: DomainError.titleTooLong(501)) {
            try TodoCommands.update(open, id: id, title: String(repeating: "x", count: 501), deadline: nil, memo: nil)
        }
        #expect(throws: DomainError.invalidDate("2026-02-30")) {
            try TodoCommands.update(open, id: id, title: nil, deadline: "2026-02-30", memo: nil)
        }
    }

    // MARK: - state transitions

    @Test func completeAndReopenFollowTheCompletionState() throws {
        #expect(try TodoCommands.complete(open, id: id) == .todoCompleted(id: id))
        #expect(throws: DomainError.alreadyCompleted(id)) { try TodoCommands.complete(completed, id: id) }
        #expect(try TodoCommands.reopen(completed, id: id) == .todoReopened(id: id))
        #expect(throws: DomainError.notCompleted(id)) { try TodoCommands.reopen(open, id: id) }
    }

    @Test func deleteWorksOnOpenAndCompletedTodos() throws {
        #expect(try TodoCommands.delete(open, id: id) == .todoDeleted(id: id))
        #expect(try TodoCommands.delete(completed, id: id) == .todoDeleted(id: id))
    }

    @Test func everyCommandRejectsUnknownTodos() {
        let unknown = TodoAggregate()
        #expect(throws: DomainError.unknownTodo(id)) {
            try TodoCommands.update(unknown, id: id, title: "t", deadline: nil, memo: nil)
        }
        #expect(throws: DomainError.unknownTodo(id)) { try TodoCommands.complete(unknown, id: id) }
        #expect(throws: DomainError.unknownTodo(id)) { try TodoCommands.reopen(unknown, id: id) }
        #expect(throws: DomainError.unknownTodo(id)) { try TodoCommands.delete(unknown, id: id) }
        #expect(throws: DomainError.unknownTodo(uuid(77))) { try TodoCommands.complete(open, id: uuid(77)) }
    }

    @Test func everyCommandRejectsDeletedTodos() {
        #expect(throws: DomainError.todoDeleted(id)) {
            try TodoCommands.update(deleted, id: id, title: "t", deadline: nil, memo: nil)
        }
        #expect(throws: DomainError.todoDeleted(id)) { try TodoCommands.complete(deleted, id: id) }
        #expect(throws: DomainError.todoDeleted(id)) { try TodoCommands.reopen(deleted, id: id) }
        #expect(throws: DomainError.todoDeleted(id)) { try TodoCommands.delete(deleted, id: id) }
        #expect(throws: DomainError.todoDeleted(id)) {
            try TodoCommands.tag(deleted, id: id, tag: liveTag, tagId: tagID)
        }
        #expect(throws: DomainError.todoDeleted(id)) {
            try TodoCommands.untag(deleted, id: id, tag: liveTag, tagId: tagID)
        }
    }

    // MARK: - tags

    @Test func tagAndUntagDecideTheirEvents() throws {
        #expect(try TodoCommands.tag(open, id: id, tag: liveTag, tagId: tagID) == .todoTagged(id: id, tagId: tagID))
        #expect(try TodoCommands.tag(completed, id: id, tag: liveTag, tagId: tagID) == .todoTagged(id: id, tagId: tagID))
        #expect(try TodoCommands.untag(tagged, id: id, tag: liveTag, tagId: tagID)
            == .todoUntagged(id: id, tagId: tagID))
    }

    @Test func tagRejectsUnknownOrDeletedTodosAndTags() {
        #expect(throws: DomainError.unknownTodo(id)) {
            try TodoCommands.tag(TodoAggregate(), id: id, tag: liveTag, tagId: tagID)
        }
        #expect(throws: DomainError.unknownTag(tagID)) {
            try TodoCommands.tag(open, id: id, tag: TagAggregate(), tagId: tagID)
        }
        #expect(throws: DomainError.unknownTag(uuid(31))) {
            try TodoCommands.tag(open, id: id, tag: liveTag, tagId: uuid(31))
        }
        #expect(throws: DomainError.tagDeleted(tagID)) {
            try TodoCommands.tag(open, id: id, tag: deletedTag, tagId: tagID)
        }
        // The todo is checked first.
        #expect(throws: DomainError.unknownTodo(id)) {
            try TodoCommands.tag(TodoAggregate(), id: id, tag: TagAggregate(), tagId: tagID)
        }
    }

    @Test func tagRejectsATagTheTodoAlreadyHas() {
        #expect(throws: DomainError.alreadyTagged(todo: id, tag: tagID)) {
            try TodoCommands.tag(tagged, id: id, tag: liveTag, tagId: tagID)
        }
    }

    @Test func untagRejectsATagTheTodoDoesNotHave() {
        #expect(throws: DomainError.notTagged(todo: id, tag: tagID)) {
            try TodoCommands.untag(open, id: id, tag: liveTag, tagId: tagID)
        }
        var untagged = tagged
        untagged.apply(.todoUntagged(id: id, tagId: tagID))
        #expect(throws: DomainError.notTagged(todo: id, tag: tagID)) {
            try TodoCommands.untag(untagged, id: id, tag: liveTag, tagId: tagID)
        }
        // The tag's state is checked before the todo's tags: a deleted tag is refused as such.
        #expect(throws: DomainError.tagDeleted(tagID)) {
            try TodoCommands.untag(open, id: id, tag: deletedTag, tagId: tagID)
        }
    }

    @Test func untagRejectsUnknownTodosAndTags() {
        #expect(throws: DomainError.unknownTodo(id)) {
            try TodoCommands.untag(TodoAggregate(), id: id, tag: liveTag, tagId: tagID)
        }
        #expect(throws: DomainError.unknownTag(tagID)) {
            try TodoCommands.untag(tagged, id: id, tag: TagAggregate(), tagId: tagID)
        }
        #expect(throws: DomainError.unknownTag(uuid(31))) {
            try TodoCommands.untag(tagged, id: id, tag: liveTag, tagId: uuid(31))
        }
    }

    /// A deleted tag is on no todo any more, even one that remembers it: untagging it is refused.
    @Test func untagRefusesADeletedTagTheTodoRemembers() {
        #expect(throws: DomainError.tagDeleted(tagID)) {
            try TodoCommands.untag(tagged, id: id, tag: deletedTag, tagId: tagID)
        }
    }
}
