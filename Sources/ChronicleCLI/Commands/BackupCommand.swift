import ArgumentParser
import Chronicle
import ChronicleWire
import Foundation

/// `chronicle backup DIR`: a consistent copy of the whole store while others write.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the whole store (log, sync state, stored entities) into a new folder while it is in use.",
        discussion: "DIR must not exist or be empty. The copy is a store of its own, consistent at one position, that 'verify --deep' accepts; restore it by using it in place of the store.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The folder to write the copy into (new or empty).") var directory: String
    @Flag(help: "Print {\"directory\",\"position\"} as JSON.") var json = false

    func run() async throws {
        let opened = try StoreAccess.openStore(store)
        // mdb_env_copy2 reports no progress: one line while it copies, on a terminal only.
        let onTerminal = ProgressLine.stderrIsTerminal
        if onTerminal { CLIOutput.progress("backup: copying the stored entities, then the log…") }
        let copied = Result { try opened.backup(to: directory) }
        if onTerminal { CLIOutput.note("") }
        await opened.close()
        let summary = try copied.get()
        if json {
            CLIOutput.line("{\"directory\":\(EventJSON.quote(summary.directory)),\"position\":\(summary.position)}")
        } else {
            CLIOutput.line("backed up to \(summary.directory) at position \(summary.position)")
        }
    }
}
