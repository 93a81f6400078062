import ArgumentParser

// Replaced by the issue that delivers `chronicle replay`.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'replay' is not available yet") }
}
