import ArgumentParser

// Replaced by the issue that delivers `chronicle serve`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'serve' is not available yet") }
}
