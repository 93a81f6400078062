import ArgumentParser

// Replaced by the issue that delivers `chronicle stats`.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'stats' is not available yet") }
}
