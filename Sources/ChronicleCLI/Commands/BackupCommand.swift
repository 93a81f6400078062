import ArgumentParser
import Chronicle
import Foundation

/// `chronicle backup DIR`: a consistent copy of the whole store while others write.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the whole store (log, sync state, read models) into a new folder while it is in use.",
        discussion: "DIR must not exist or be empty. The copy is a store of its own, consistent at one position, that 'verify --deep' accepts; restore it by using it in place of the store.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The folder to write the copy into (new or empty).") var directory: String
    @Flag(help: "Print {\"directory\",\"position\"} as JSON.") var json = false

    func run() async throws {
        let opened = try StoreAccess.openStore(store)
        let line = ProgressLine("backup")
        if ProgressLine.stderrIsTerminal { CLIOutput.progress("backup: copying the models, then the log…") }
        let summary: BackupSummary
        do {
            summary = try opened.backup(to: directory)
        } catch {
            line.finish()
            await opened.close()
            throw error
        }
        if ProgressLine.stderrIsTerminal { CLIOutput.note("") }
        await opened.close()
        if json {
            CLIOutput.line("{\"directory\":\(jsonString(summary.directory)),\"position\":\(summary.position)}")
        } else {
            CLIOutput.line("backed up to \(summary.directory) at position \(summary.position)")
        }
    }
}

/// A JSON string literal.
func jsonString(_ text: String) -> String {
    let encoded = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) }
    return encoded ?? "\"\""
}
