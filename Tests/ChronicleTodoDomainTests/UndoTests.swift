import ChronicleTodoDomain
import Foundation
import Testing

/// ``Undo/inverse(of:after:)``, one event type at a time.
struct UndoTests {
    let id = uuid(1), tag = uuid(2)
    var created: DomainEvent {
        .todoCreated(id: id, title: "Pay rent", deadline: day("2026-03-01"), userId: nil, memo: nil)
    }

    @Test func creationsAndRestorationsAreUndoneByDeletionsAndDeletionsByRestorations() {
        #expect(Undo.inverse(of: .userCreated(id: id, name: "Ada", age: 36), after: []) == .userDeleted(id: id))
        #expect(Undo.inverse(of: .userDeleted(id: id), after: []) == .userRestored(id: id))
        #expect(Undo.inverse(of: .userRestored(id: id), after: []) == .userDeleted(id: id))
        #expect(Undo.inverse(of: created, after: []) == .todoDeleted(id: id))
        #expect(Undo.inverse(of: .todoDeleted(id: id), after: [created]) == .todoRestored(id: id))
        #expect(Undo.inverse(of: .todoRestored(id: id), after: [created]) == .todoDeleted(id: id))
        #expect(Undo.inverse(of: .tagCreated(id: id, name: "Work", color: "#000000"), after: []) == .tagDeleted(id: id))
        #expect(Undo.inverse(of: .tagDeleted(id: id), after: []) == .tagRestored(id: id))
        #expect(Undo.inverse(of: .tagRestored(id: id), after: []) == .tagDeleted(id: id))
    }

    @Test func completionsReopeningsAndTagsAreUndoneByTheirOpposites() {
        #expect(Undo.inverse(of: .todoCompleted(id: id), after: [created]) == .todoReopened(id: id))
        #expect(Undo.inverse(of: .todoReopened(id: id), after: [created]) == .todoCompleted(id: id))
        #expect(Undo.inverse(of: .todoTagged(id: id, tagId: tag), after: [created]) == .todoUntagged(id: id, tagId: tag))
        #expect(Undo.inverse(of: .todoUntagged(id: id, tagId: tag), after: [created]) == .todoTagged(id: id, tagId: tag))
    }

    @Test func anUpdateIsUndoneByWritingTheSameFieldsAsTheyWereBeforeIt() {
        let updated = DomainEvent.todoUpdated(id: id, title: "Pay the rent", deadline: nil, memo: "bank")
        #expect(Undo.inverse(of: updated, after: [created]) == .todoUpdated(id: id, title: "Pay rent", deadline: nil, memo: ""))
        let moved = DomainEvent.todoUpdated(id: id, title: nil, deadline: day("2026-03-09"), memo: nil)
        #expect(Undo.inverse(of: moved, after: [created, updated]) == .todoUpdated(id: id, title: nil, deadline: day("2026-03-01"), memo: nil))

        let ada = DomainEvent.userCreated(id: id, name: "Ada", age: 36)
        #expect(Undo.inverse(of: .userUpdated(id: id, name: nil, age: 37), after: [ada]) == .userUpdated(id: id, name: nil, age: 36))
        let work = DomainEvent.tagCreated(id: id, name: "Work", color: "#112233")
        #expect(Undo.inverse(of: .tagUpdated(id: id, name: "Job", color: "#ffffff"), after: [work])
                == .tagUpdated(id: id, name: "Work", color: "#112233"))
    }

    @Test func anUpdateOfAnEntityNeverCreatedHasNoInverse() {
        #expect(Undo.inverse(of: .userUpdated(id: id, name: "X", age: nil), after: []) == nil)
        #expect(Undo.inverse(of: .todoUpdated(id: id, title: "X", deadline: nil, memo: nil), after: []) == nil)
        #expect(Undo.inverse(of: .tagUpdated(id: id, name: "X", color: nil), after: []) == nil)
    }

    @Test func undoingThenRedoingGivesBackTheStateAfterTheCommand() {
        let updated = DomainEvent.todoUpdated(id: id, title: "Pay the rent", deadline: day("2026-03-02"), memo: "bank")
        let undo = Undo.inverse(of: updated, after: [created])!
        let redo = Undo.inverse(of: undo, after: [created, updated])!
        var afterCommand = TodoAggregate(), afterRedo = TodoAggregate(), afterUndo = TodoAggregate()
        [created, updated].forEach { afterCommand.apply($0) }
        [created, updated, undo, redo].forEach { afterRedo.apply($0) }
        [created, updated, undo].forEach { afterUndo.apply($0) }
        var original = TodoAggregate()
        original.apply(created)
        #expect(afterUndo == original)
        #expect(afterRedo == afterCommand)
    }
}
