import ArgumentParser

// Replaced by the issue that delivers `chronicle sync`.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'sync' is not available yet") }
}
