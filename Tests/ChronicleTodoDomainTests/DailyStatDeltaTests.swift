import Foundation
import Testing
import ChronicleTodoDomain

struct DailyStatDeltaTests {
    let open = Todo(id: uuid(10), title: "t", deadline: day("2026-03-02"))
    var completed: Todo {
        var todo = open
        todo.isCompleted = true
        return todo
    }

    func moved(_ todo: Todo, to text: String) -> Todo {
        var todo = todo
        todo.deadline = day(text)
        return todo
    }

    @Test func creatingAddsOneToTotal() {
        #expect(DailyStatDelta.between(before: nil, after: open)
            == [DailyStatDelta(date: day("2026-03-02"), total: 1, completed: 0)])
        #expect(DailyStatDelta.between(before: nil, after: completed)
            == [DailyStatDelta(date: day("2026-03-02"), total: 1, completed: 1)])
    }

    @Test func movingAnOpenTodoShiftsTotalBetweenDaysSortedByDate() {
        // Moving backwards: the new day comes first in the result.
        #expect(DailyStatDelta.between(before: open, after: moved(open, to: "2026-03-01")) == [
            DailyStatDelta(date: day("2026-03-01"), total: 1, completed: 0),
            DailyStatDelta(date: day("2026-03-02"), total: -1, completed: 0),
        ])
        #expect(DailyStatDelta.between(before: open, after: moved(open, to: "2026-04-01")) == [
            DailyStatDelta(date: day("2026-03-02"), total: -1, completed: 0),
            DailyStatDelta(date: day("2026-04-01"), total: 1, completed: 0),
        ])
    }

    @Test func movingACompletedTodoShiftsBothCounts() {
        #expect(DailyStatDelta.between(before: completed, after: moved(completed, to: "2027-01-01")) == [
            DailyStatDelta(date: day("2026-03-02"), total: -1, completed: -1),
            DailyStatDelta(date: day("2027-01-01"), total: 1, completed: 1),
        ])
    }

    @Test func deletingLowersTheCountsOfItsDay() {
        #expect(DailyStatDelta.between(before: completed, after: nil)
            == [DailyStatDelta(date: day("2026-03-02"), total: -1, completed: -1)])
        #expect(DailyStatDelta.between(before: open, after: nil)
            == [DailyStatDelta(date: day("2026-03-02"), total: -1, completed: 0)])
    }

    @Test func completingAndReopeningOnlyMoveCompleted() {
        #expect(DailyStatDelta.between(before: open, after: completed)
            == [DailyStatDelta(date: day("2026-03-02"), total: 0, completed: 1)])
        #expect(DailyStatDelta.between(before: completed, after: open)
            == [DailyStatDelta(date: day("2026-03-02"), total: 0, completed: -1)])
    }

    @Test func changesThatDoNotTouchCountsYieldNothing() {
        var retitled = open
        retitled.title = "other"
        retitled.memo = "m"
        #expect(DailyStatDelta.between(before: open, after: retitled).isEmpty)
        #expect(DailyStatDelta.between(before: completed, after: completed).isEmpty)
        #expect(DailyStatDelta.between(before: nil, after: nil).isEmpty)
    }

    @Test func taggingDoesNotTouchCounts() {
        var tagged = completed
        tagged.tags = [uuid(30), uuid(31)]
        #expect(DailyStatDelta.between(before: completed, after: tagged).isEmpty)
        #expect(DailyStatDelta.between(before: tagged, after: completed).isEmpty)
        #expect(DailyStatDelta.between(before: nil, after: tagged)
            == [DailyStatDelta(date: day("2026-03-02"), total: 1, completed: 1)])
    }

    @Test func movingAndCompletingAtOnce() {
        #expect(DailyStatDelta.between(before: open, after: moved(completed, to: "2026-03-03")) == [
            DailyStatDelta(date: day("2026-03-02"), total: -1, completed: 0),
            DailyStatDelta(date: day("2026-03-03"), total: 1, completed: 1),
        ])
    }
}
