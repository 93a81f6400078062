// Every common way an app catches Chronicle's errors, written as a new user would in an app's
// `main.swift`: at the top level and in functions. That this target compiles is the first
// check (Swift 6.3.1's compiler crashed on two of these against a typed-throws API); CLITests
// runs it and checks what each catch saw.
import Chronicle
import Foundation

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-catch-\(UUID().uuidString)").path
defer { try? FileManager.default.removeItem(atPath: folder) }
let store = try ChronicleStore(directory: folder, logOptions: EventLogOptions(noSync: true))
let todo = try await store.createTodo(title: "Pay rent", deadline: "2026-03-01")
_ = try await store.completeTodo(todo.id)

// Top level.
do {
    _ = try await store.completeTodo(todo.id)
} catch {
    print("top-level catch: \(error)")
}
do {
    _ = try await store.completeTodo(todo.id)
} catch let error as ChronicleError {
    print("top-level catch as ChronicleError: \(error)")
}
do {
    _ = try await store.completeTodo(todo.id)
} catch let error as ChronicleError {
    print("top-level catch as ChronicleError, then catch: \(error)")
} catch {
    print("unexpected: \(error)")
}
do {
    _ = try await store.completeTodo(todo.id)
} catch ChronicleError.rejected(let rule) {
    print("top-level catch ChronicleError.rejected: \(rule)")
} catch {
    print("unexpected: \(error)")
}
do {
    _ = try await store.completeTodo(todo.id)
} catch ChronicleError.rejected(.alreadyCompleted(let id)) {
    print("top-level catch a rule: already completed \(id == todo.id)")
}

// In functions.
func catchAll() async {
    do {
        _ = try await store.completeTodo(todo.id)
    } catch {
        print("function catch: \(error)")
    }
}
func catchAsThenRest() async {
    do {
        _ = try await store.completeTodo(todo.id)
    } catch let error as ChronicleError {
        print("function catch as ChronicleError: \(error)")
    } catch {
        print("unexpected: \(error)")
    }
}
func catchRejectedOrRethrow() async throws {
    do {
        _ = try await store.completeTodo(todo.id)
    } catch ChronicleError.rejected(let rule) {
        print("function catch ChronicleError.rejected: \(rule)")
    }
}
func switchOnTheError() async {
    do {
        _ = try await store.completeTodo(todo.id)
    } catch {
        switch error as? ChronicleError {
        case .rejected(let rule)?: print("function switch: rejected, \(rule)")
        case .closed?: print("function switch: closed")
        default: print("function switch: other, \(error)")
        }
    }
}
await catchAll()
await catchAsThenRest()
try await catchRejectedOrRethrow()
await switchOnTheError()

await store.close()
do {
    _ = try await store.todos()
} catch ChronicleError.closed {
    print("top-level catch ChronicleError.closed")
}
