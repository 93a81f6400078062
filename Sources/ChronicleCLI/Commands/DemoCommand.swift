import ArgumentParser

// Replaced by the issue that delivers `chronicle demo`.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'demo' is not available yet") }
}
