import ArgumentParser

// Replaced by the issue that delivers `chronicle todo`.
struct TodoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "todo", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'todo' is not available yet") }
}
