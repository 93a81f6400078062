import ArgumentParser

// Replaced by the issue that delivers `chronicle user`.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "user", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'user' is not available yet") }
}
