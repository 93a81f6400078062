import ArgumentParser

// Replaced by the issue that delivers `chronicle rebuild`.
struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rebuild", abstract: "Not available yet.")
    func run() async throws { throw ValidationError("'rebuild' is not available yet") }
}
