import Chronicle
import Foundation

/// `racer`: one process of a race between processes deciding on the same store.
///
/// It opens the store (its background follower on), prints `ready`, then runs one command
/// per line read from stdin, so that a test can send the same moment's command to several
/// racers at once and read each outcome:
///
/// - `user-add NAME` → `ok ID`
/// - `tag-add NAME COLOR` → `ok ID` or `rejected MESSAGE`
/// - `fill USER DAY N` → adds todos for USER on DAY and moves each of them to the next day,
///   N commands in all or until the user is gone → `filled COMMANDS`
/// - `delete-user USER` → `ok` or `rejected MESSAGE`
/// - `quit` → exits 0
///
/// A conflict the store could not resolve by deciding again prints `conflict MESSAGE` and
/// the racer goes on; any other failure prints `error: MESSAGE` on stderr and exits 1.
enum Racer {
    static func run(_ raw: [String]) async throws {
        let arguments = try Arguments(raw, flagNames: [])
        let chronicle = try ChronicleStore(directory: try arguments.string("store"))
        Output.line("ready")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            do {
                switch (command, words.count) {
                case ("user-add", 2):
                    let user = try await chronicle.createUser(name: words[1], age: 30)
                    Output.line("ok \(user.id.uuidString.lowercased())")
                case ("tag-add", 3):
                    let tag = try await chronicle.createTag(name: words[1], color: words[2])
                    Output.line("ok \(tag.id.uuidString.lowercased())")
                case ("fill", 4):
                    let commands = try await fill(chronicle, user: try uuid(words[1]), day: words[2], limit: Int(words[3]) ?? 0)
                    Output.line("filled \(commands)")
                case ("delete-user", 2):
                    try await chronicle.deleteUser(try uuid(words[1]))
                    Output.line("ok")
                case ("quit", 1):
                    await chronicle.close()
                    return
                default:
                    throw UsageError("unknown racer command '\(line)'")
                }
            } catch ChronicleError.rejected(let rule) {
                Output.line("rejected \(rule)")
            } catch let error as ChronicleError {
                guard case .conflict = error else { throw error }
                Output.line("conflict \(error)")
            }
        }
        await chronicle.close()
    }

    /// Adds todos for `user` and moves each to the next day, until `limit` commands or the
    /// user is gone (its deletion rejects the next command that names it or its todos).
    private static func fill(_ chronicle: ChronicleStore, user: UUID, day: String, limit: Int) async throws -> Int {
        var commands = 0
        do {
            while commands < limit {
                let todo = try await chronicle.createTodo(title: "race \(commands)", deadline: day, userId: user)
                commands += 1
                try await chronicle.updateTodo(todo.id, deadline: nextDay(day))
                commands += 1
            }
        } catch ChronicleError.rejected {
            // The user (or the todo, by the cascade) was deleted: the race is over for us.
        }
        return commands
    }

    private static func nextDay(_ day: String) -> String {
        day.hasSuffix("-01") ? String(day.dropLast(2)) + "02" : String(day.dropLast(2)) + "01"
    }

    private static func uuid(_ text: String) throws(UsageError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw UsageError("not a UUID: '\(text)'") }
        return id
    }
}
