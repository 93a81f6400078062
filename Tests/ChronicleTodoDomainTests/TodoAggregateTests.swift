import Foundation
import Testing
import ChronicleTodoDomain

struct TodoAggregateTests {
    let id = uuid(10)
    let owner = uuid(1)
    var created: DomainEvent {
        .todoCreated(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: owner, memo: nil)
    }

    @Test func startsUnknown() {
        let aggregate = TodoAggregate()
        #expect(aggregate.todo == nil)
        #expect(!aggregate.isDeleted)
        #expect(!aggregate.isLive)
        #expect(aggregate.tags.isEmpty)
    }

    @Test func foldsCreateUpdateCompleteReopen() {
        var aggregate = todoAggregate(created)
        #expect(aggregate.todo == Todo(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: owner))
        #expect(aggregate.isLive)

        aggregate.apply(.todoUpdated(id: id, title: nil, deadline: day("2026-03-02"), memo: "bank"))
        #expect(aggregate.todo?.title == "Pay rent")
        #expect(aggregate.todo?.deadline == day("2026-03-02"))
        #expect(aggregate.todo?.memo == "bank")

        aggregate.apply(.todoUpdated(id: id, title: "Rent", deadline: nil, memo: nil))
        #expect(aggregate.todo?.title == "Rent")
        #expect(aggregate.todo?.memo == "bank")

        aggregate.apply(.todoCompleted(id: id))
        #expect(aggregate.todo?.isCompleted == true)
        aggregate.apply(.todoReopened(id: id))
        #expect(aggregate.todo?.isCompleted == false)
    }

    @Test func deletionKeepsTheLastStateAndIsFinal() {
        var aggregate = todoAggregate(created, .todoCompleted(id: id), .todoDeleted(id: id))
        #expect(aggregate.isDeleted)
        #expect(!aggregate.isLive)
        #expect(aggregate.todo?.isCompleted == true)
        aggregate.apply(.todoReopened(id: id))
        aggregate.apply(.todoUpdated(id: id, title: "Zombie", deadline: nil, memo: nil))
        #expect(aggregate.todo?.isCompleted == true)
        #expect(aggregate.todo?.title == "Pay rent")
    }

    @Test func ignoresOtherTodosUserEventsAndEventsBeforeCreation() {
        var aggregate = TodoAggregate()
        aggregate.apply(.todoCompleted(id: id))
        aggregate.apply(.todoDeleted(id: id))
        #expect(aggregate == TodoAggregate())

        aggregate.apply(created)
        let snapshot = aggregate
        let other = uuid(11)
        aggregate.apply(.todoCreated(id: other, title: "x", deadline: day("2026-01-01"), userId: nil, memo: nil))
        aggregate.apply(.todoCompleted(id: other))
        aggregate.apply(.todoDeleted(id: other))
        aggregate.apply(.userDeleted(id: id))
        aggregate.apply(.userDeleted(id: owner))
        aggregate.apply(.userUpdated(id: id, name: "n", age: 1))
        aggregate.apply(.todoTagged(id: other, tagId: uuid(30)))
        aggregate.apply(.tagCreated(id: id, name: "n", color: "#000000"))
        aggregate.apply(.tagDeleted(id: id))
        #expect(aggregate == snapshot)
    }

    @Test func foldsTaggingIntoASetAndLeavesTodoTagsEmpty() {
        var aggregate = todoAggregate(created, .todoTagged(id: id, tagId: uuid(30)), .todoTagged(id: id, tagId: uuid(31)))
        #expect(aggregate.tags == [uuid(30), uuid(31)])
        aggregate.apply(.todoTagged(id: id, tagId: uuid(30)))
        #expect(aggregate.tags == [uuid(30), uuid(31)])
        aggregate.apply(.todoUntagged(id: id, tagId: uuid(30)))
        aggregate.apply(.todoUntagged(id: id, tagId: uuid(99)))
        #expect(aggregate.tags == [uuid(31)])
        // Which tags are live is not in this stream; read models fill `todo.tags`.
        #expect(aggregate.todo?.tags == [])
    }

    @Test func taggingBeforeCreationOrAfterDeletionIsIgnored() {
        var aggregate = todoAggregate(.todoTagged(id: id, tagId: uuid(30)))
        #expect(aggregate == TodoAggregate())
        aggregate.apply(created)
        aggregate.apply(.todoTagged(id: id, tagId: uuid(31)))
        aggregate.apply(.todoDeleted(id: id))
        aggregate.apply(.todoTagged(id: id, tagId: uuid(32)))
        aggregate.apply(.todoUntagged(id: id, tagId: uuid(31)))
        #expect(aggregate.tags == [uuid(31)])
    }
}
