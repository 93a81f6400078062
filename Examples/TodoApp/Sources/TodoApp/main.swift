// A scripted session of a small todo app on Chronicle: commands, an observed query, an
// atomic step, undo, and a sync with a server. Every line it prints is what the app would
// show; the repository's tests run it and read them.
//
//   TodoApp <store folder> <server URL> <token>
import Chronicle
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let server = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: TodoApp <store folder> <server URL> <token>\n".utf8))
    exit(2)
}
let store = try ChronicleStore(directory: arguments[1])
let day = "2026-12-01"

// The day's list, as a view model would follow it: the current value, then each new one.
let dayView = DayViewModel()
let following = Task { try await dayView.follow(store, day: day) }

let ada = try await store.createUser(name: "Ada", age: 36)
let notes = try await store.createTodo(title: "Write notes", deadline: day, userId: ada.id)
await dayView.waitUntilShown(["Write notes"])

// Two commands, one step: both or neither, and one undo takes both back.
let planned = try await store.write { step in
    let work = try await step.createTag(name: "Work", color: "#FF8800")
    let review = try await step.createTodo(title: "Review", deadline: day, userId: ada.id)
    return try await step.tagTodo(review.id, tag: work.id)
}
try await store.waitForModels(through: planned.position)
print("step: '\(planned.value.title)' tagged, at position \(planned.position)")
await dayView.waitUntilShown(["Write notes", "Review"])
try await store.undo()
print("undo: \(try await store.todos(on: day).map(\.title)), tags \(try await store.tags().map(\.name))")
await dayView.waitUntilShown(["Write notes"])

_ = try await store.completeTodo(notes.id)
do {
    _ = try await store.completeTodo(notes.id)
} catch ChronicleError.rejected(let rule) {   // every method throws ChronicleError
    print("refused: \(rule)")
} catch {
    print("failed: \(error)")
}
await dayView.waitUntilShown(["Write notes ✓"])

let remote = SyncConfiguration(remote: server, token: arguments[3])
let pushed = try await store.push(remote)
print("pushed: \(pushed.accepted) events, outcome \(pushed.outcome)")
let pulled = try await store.pull(remote)
print("pulled: \(pulled.stored) new events")
print("pending: \(try store.syncStatus().pending)")

following.cancel()
await store.close()
print("seen: \(await dayView.history.map { $0.joined(separator: ",") }.joined(separator: " | "))")

/// What a screen showing one day keeps: each distinct list it was given, as titles with a
/// mark for the completed.
actor DayViewModel {
    private(set) var history: [[String]] = []
    private var waiters: [(titles: [String], continuation: CheckedContinuation<Void, Never>)] = []

    func follow(_ store: ChronicleStore, day: String) async throws {
        for try await todos in store.observe(.todos(on: day)) {
            let shown = todos.map { $0.title + ($0.isCompleted ? " ✓" : "") }
            history.append(shown)
            waiters.removeAll { waiter in
                guard waiter.titles == shown else { return false }
                waiter.continuation.resume()
                return true
            }
        }
    }

    /// Returns once the list shows `titles`.
    func waitUntilShown(_ titles: [String]) async {
        if history.last == titles { return }
        await withCheckedContinuation { waiters.append((titles, $0)) }
    }
}
