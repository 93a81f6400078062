import Foundation
import Testing

@Suite("chronicle demo", .timeLimit(.minutes(10)))
struct DemoCLITests {
    @Test("demo runs the whole story to the end and exits 0: the server's copy equals the local log, two devices converge")
    func demo() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let result = try await cli.run(["demo"], useStore: false)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("identical: yes"))
        #expect(result.stdout.contains("verify: OK"))
        #expect(result.stdout.contains("gave up after 3 tries"))
        #expect(result.stdout.contains("2026-12-03  1      1"))
        // The second device: one todo retitled on both, one tag name on both.
        #expect(result.stdout.contains("both show \"Finish the A-0 compiler (laptop)\""))
        #expect(result.stdout.contains("tags on both: \"Work\", \"work (2)\""))
        #expect(result.stdout.contains("conflicts on the phone: 2"))
        #expect(result.stdout.contains("overwritten: title written here at"))
        #expect(result.stdout.contains("conflicts on the laptop: 1"))
        #expect(result.stdout.contains("show the same users, todos, tags and stats: yes"))
    }
}
