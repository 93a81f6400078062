import ArgumentParser
import Chronicle
import ChronicleWire
import ChronicleLog
import Foundation

/// `chronicle undo`: reverts this store's last commands by appending compensating events.
struct UndoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Revert the last commands made on this store (compensating events; nothing is removed).",
        discussion: """
            A user's deletion and its todos come back together. A step that a later command \
            (here or on another device) changed since is refused, and nothing is appended.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "How many commands to revert.") var steps = 1
    @Flag(help: "Print {\"undone\": [<event>…]}, the events appended.") var json = false

    func validate() throws { try StepCount.validate(steps) }

    func run() async throws {
        let chronicle = try StoreAccess.openStore(store)
        StepCount.print(try await chronicle.undo(steps: steps), key: "undone", json: json)
    }
}

/// `chronicle redo`: applies again what `undo` reverted, until a new command.
struct RedoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Apply again the last commands undone (a new command since the undo forgets them).")

    @OptionGroup var store: StoreOptions
    @Option(help: "How many undone commands to apply again.") var steps = 1
    @Flag(help: "Print {\"redone\": [<event>…]}, the events appended.") var json = false

    func validate() throws { try StepCount.validate(steps) }

    func run() async throws {
        let chronicle = try StoreAccess.openStore(store)
        StepCount.print(try await chronicle.redo(steps: steps), key: "redone", json: json)
    }
}

/// What `undo` and `redo` share: the `--steps` check and the output.
enum StepCount {
    static func validate(_ steps: Int) throws {
        guard steps >= 1 else { throw ValidationError("--steps must be at least 1 (got \(steps))") }
    }

    static func print(_ events: [RecordedEvent], key: String, json: Bool) {
        if json {
            CLIOutput.line("{\(EventJSON.quote(key)):\(EventJSON.encodeArray(events))}")
            return
        }
        CLIOutput.line(CLIOutput.table(["POSITION", "TYPE", "STREAM"], events.map { [String($0.position), $0.type, $0.stream] }))
    }
}
