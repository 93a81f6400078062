import ArgumentParser
import Foundation

/// `chronicle`: the audit, replay and sync tool over a Chronicle store.
@main
struct ChronicleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chronicle",
        abstract: "An event-sourced store for offline-first apps: audit, replay, rebuild and sync it.",
        subcommands: [
            UserCommand.self, TodoCommand.self, TagCommand.self, StatsCommand.self,
            LogCommand.self, VerifyCommand.self, ReplayCommand.self, RebuildCommand.self,
            SyncCommand.self, ServeCommand.self, ServerCommand.self, DemoCommand.self,
            BackupCommand.self, ExportCommand.self, ImportCommand.self, UndoCommand.self, RedoCommand.self, ModelCommand.self,
            EntityListCommand.self, EntityShowCommand.self, EntityCreateCommand.self, EntityUpdateCommand.self,
            EntityLifecycleCommand<EntityDeletion>.self, EntityLifecycleCommand<EntityRestoration>.self,
        ]
    )

    /// Parses and runs, printing every failure as one `error: …` line on stderr.
    static func main() async {
        do {
            try rejectUnknownSubcommand(Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            OpenedLogs.closeAll()
        } catch {
            exit(withFailure: error)
        }
    }

    /// An unknown command is an error whatever follows it: `chronicle backup --help` must not
    /// print the root help and exit 0 as if it had asked for it.
    static func rejectUnknownSubcommand(_ arguments: [String]) throws {
        var command: any ParsableCommand.Type = Self.self
        var path = ["chronicle"]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return }
            guard let next = subcommands.first(where: { $0._commandName == argument }) else {
                throw ValidationError("unknown command '\(argument)' for '\(path.joined(separator: " "))': see '\(path.joined(separator: " ")) --help'")
            }
            command = next
            path.append(argument)
        }
    }

    static func exit(withFailure error: any Error) -> Never {
        OpenedLogs.closeAll()
        let code = exitCode(for: error)
        if code == .success {
            print(fullMessage(for: error))   // --help, --version
            Foundation.exit(0)
        }
        if let exitCode = error as? ExitCode { Foundation.exit(exitCode.rawValue) }
        let message = CLIOutput.isArgumentParserError(error) ? Self.message(for: error) : String(describing: error)
        let firstLine = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? "failed"
        CLIOutput.error(firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine)
        Foundation.exit(code.rawValue == 0 ? 1 : code.rawValue)
    }
}
