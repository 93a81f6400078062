import Foundation
import Testing
import ChronicleReferee

/// One test per rule of docs/PROTOCOL.md ("Conflicts") for `overwritten` and `deleted`, each a
/// device's log and the server's order written by hand as wire events.
@Suite struct RefereeConflictTests {
    /// A wire event: `id` a short name, `second` its timestamp's second (its device's clock).
    private func event(_ id: String, _ stream: String, _ type: String, _ data: String,
                       by origin: String, at second: Int) -> RefereeEvent {
        let text = """
            {"position":0,"id":"\(id)","stream":"\(stream)","version":1,"type":"\(type)",\
            "timestamp":"2026-11-22T02:30:\(String(format: "%02d", second)).000Z","origin":"\(origin)","data":\(data)}
            """
        return try! RefereeEvent.parse(json: Data(text.utf8))
    }

    private var milk: RefereeEvent { event("c", "todo-t1", "TodoCreated", #"{"deadline":"2026-12-01","title":"Milk"}"#, by: "a", at: 0) }

    @Test func aPulledWriteMadeEarlierByItsClockOverwritesThisStoresLaterOne() {
        let mine = event("m", "todo-t1", "TodoUpdated", #"{"title":"Mine","memo":"x"}"#, by: "a", at: 20)
        let theirs = event("t", "todo-t1", "TodoUpdated", #"{"title":"Theirs","memo":"y"}"#, by: "b", at: 10)
        let found = RefereeState.conflicts(of: "a", log: [milk, mine, theirs], serverOrder: [milk, mine, theirs])
        #expect(found == [
            RefereeConflict(stream: "todo-t1", kind: "overwritten", detail: "title written here at 2026-11-22T02:30:20.000Z lost to an earlier write from device b"),
            RefereeConflict(stream: "todo-t1", kind: "overwritten", detail: "memo written here at 2026-11-22T02:30:20.000Z lost to an earlier write from device b"),
        ])
        // Made later by its clock: its device may have seen this one's; no conflict. Nor on the other device.
        let later = event("t", "todo-t1", "TodoUpdated", #"{"title":"Theirs"}"#, by: "b", at: 30)
        #expect(RefereeState.conflicts(of: "a", log: [milk, mine, later], serverOrder: [milk, mine, later]) == [])
        #expect(RefereeState.conflicts(of: "b", log: [milk, mine, theirs], serverOrder: [milk, mine, theirs]) == [])
    }

    @Test func aFieldThisStoresLaterPlacedWriteHoldsIsNotOverwritten() {
        // Sent after the pulled write reached the server: this store's write wins, nothing lost.
        let mine = event("m", "todo-t1", "TodoUpdated", #"{"title":"Mine"}"#, by: "a", at: 20)
        let theirs = event("t", "todo-t1", "TodoUpdated", #"{"title":"Theirs","deadline":"2026-12-05"}"#, by: "b", at: 10)
        let earlier = event("e", "todo-t1", "TodoUpdated", #"{"deadline":"2026-12-03"}"#, by: "a", at: 15)
        let found = RefereeState.conflicts(of: "a", log: [milk, earlier, mine, theirs], serverOrder: [milk, earlier, theirs, mine])
        #expect(found == [RefereeConflict(
            stream: "todo-t1", kind: "overwritten",
            detail: "deadline written here at 2026-11-22T02:30:15.000Z lost to an earlier write from device b")])
    }

    @Test func aPulledDeletionCountsTheChangesItsDeviceCouldNotHaveSeen() {
        let sentBefore = event("s", "todo-t1", "TodoCompleted", "{}", by: "a", at: 5)
        let sentLaterByClock = event("l", "todo-t1", "TodoUpdated", #"{"memo":"x"}"#, by: "a", at: 50)
        let unsent = event("u", "todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, by: "a", at: 6)
        let deletion = event("d", "todo-t1", "TodoDeleted", "{}", by: "b", at: 40)
        let log = [milk, sentBefore, sentLaterByClock, unsent, deletion]
        let found = RefereeState.conflicts(of: "a", log: log, serverOrder: [milk, sentBefore, sentLaterByClock, deletion, unsent])
        #expect(found == [RefereeConflict(stream: "todo-t1", kind: "deleted", detail: "2 changes made here went with its deletion on device b")])
    }

    @Test func onlyChangesMadeBeforeTheEventCameHereCount() {
        let deletion = event("d", "todo-t1", "TodoDeleted", "{}", by: "b", at: 40)
        let afterwards = event("x", "todo-t1", "TodoUpdated", #"{"memo":"x"}"#, by: "a", at: 50)
        #expect(RefereeState.conflicts(of: "a", log: [milk, deletion, afterwards], serverOrder: [milk, deletion, afterwards]) == [])
    }

    @Test func anEventThatMeetsItsEntityDeletedOverrulesNothing() {
        let mine = event("m", "todo-t1", "TodoUpdated", #"{"title":"Mine"}"#, by: "a", at: 50)
        let first = event("d1", "todo-t1", "TodoDeleted", "{}", by: "b", at: 40)
        let second = event("d2", "todo-t1", "TodoDeleted", "{}", by: "c", at: 41)
        let write = event("w", "todo-t1", "TodoUpdated", #"{"title":"Theirs"}"#, by: "c", at: 1)
        let found = RefereeState.conflicts(of: "a", log: [milk, mine, first, second, write], serverOrder: [milk, first, second, write, mine])
        #expect(found == [RefereeConflict(stream: "todo-t1", kind: "deleted", detail: "1 change made here went with its deletion on device b")])
    }

    @Test func aWriteThatMetADeletionNeverHoldsAField() {
        // This store's title landed while the todo was deleted; the restoration brings back
        // the creation's, so a pulled title overwrites nothing of this store's.
        let deletion = event("d", "todo-t1", "TodoDeleted", "{}", by: "b", at: 10)
        let mine = event("m", "todo-t1", "TodoUpdated", #"{"title":"Mine"}"#, by: "a", at: 50)
        let restoration = event("r", "todo-t1", "TodoRestored", "{}", by: "b", at: 11)
        let theirs = event("t", "todo-t1", "TodoUpdated", #"{"title":"Theirs"}"#, by: "b", at: 12)
        let order = [milk, deletion, mine, restoration, theirs]
        let found = RefereeState.conflicts(of: "a", log: [milk, mine, deletion, restoration, theirs], serverOrder: order)
        #expect(found == [RefereeConflict(stream: "todo-t1", kind: "deleted", detail: "1 change made here went with its deletion on device b")])
    }

    @Test func aUsersDeletionListsNoneOfTheirTodos() {
        let ada = event("u", "user-u1", "UserCreated", #"{"name":"Ada","age":36}"#, by: "a", at: 0)
        let todo = event("c", "todo-t1", "TodoCreated", #"{"deadline":"2026-12-01","title":"Milk","userId":"u1"}"#, by: "a", at: 0)
        let retitled = event("m", "todo-t1", "TodoUpdated", #"{"title":"Oat milk"}"#, by: "a", at: 50)
        let deletion = event("d", "user-u1", "UserDeleted", "{}", by: "b", at: 40)
        #expect(RefereeState.conflicts(of: "a", log: [ada, todo, retitled, deletion], serverOrder: [ada, todo, deletion, retitled]) == [])
    }

    @Test func tagsCompletionAndTheirLabels() {
        let tagged = event("m", "todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, by: "a", at: 20)
        let done = event("n", "todo-t1", "TodoCompleted", "{}", by: "a", at: 20)
        let untagged = event("t", "todo-t1", "TodoUntagged", #"{"tagId":"g1"}"#, by: "b", at: 10)
        let reopened = event("o", "todo-t1", "TodoReopened", "{}", by: "b", at: 10)
        let order = [milk, tagged, done, untagged, reopened]
        #expect(RefereeState.conflicts(of: "a", log: order, serverOrder: order).map(\.detail) == [
            "tag g1 written here at 2026-11-22T02:30:20.000Z lost to an earlier write from device b",
            "isCompleted written here at 2026-11-22T02:30:20.000Z lost to an earlier write from device b",
        ])
    }
}
