import ChronicleTestSupport
import Foundation
import Testing

/// The app that catches Chronicle's errors every common way (Tests/CatchPatterns) compiled,
/// and each catch saw the error it was written for.
@Suite("catching Chronicle's errors", .timeLimit(.minutes(2)))
struct CatchPatternsTests {
    @Test("each pattern, at the top level and in functions, catches the rule that refused the command")
    func eachPatternCatches() async throws {
        let output = try await runCommand(Products.directory.appendingPathComponent("CatchPatterns"), [])
        #expect(output.exit.status == 0, "\(output.standardError)")
        let rule = "todo is already completed"
        let lines = output.standardOutputText.split(separator: "\n").map { line in
            // The todo's id varies: keep the words around it.
            line.replacingOccurrences(of: #"todo [0-9a-f-]{36} is"#, with: "todo is", options: .regularExpression)
        }
        #expect(lines == [
            "top-level catch: \(rule)",
            "top-level catch as ChronicleError: \(rule)",
            "top-level catch as ChronicleError, then catch: \(rule)",
            "top-level catch ChronicleError.rejected: \(rule)",
            "top-level catch a rule: already completed true",
            "function catch: \(rule)",
            "function catch as ChronicleError: \(rule)",
            "function catch ChronicleError.rejected: \(rule)",
            "function switch: rejected, \(rule)",
            "top-level catch ChronicleError.closed",
        ], "\(output.standardOutputText)")
    }
}
