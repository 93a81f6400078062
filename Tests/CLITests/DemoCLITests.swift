import Foundation
import Testing

@Suite("chronicle demo")
struct DemoCLITests {
    @Test("demo runs the whole story to the end and exits 0 with the server's copy equal to the local log")
    func demo() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let result = try await cli.run(["demo"], useStore: false)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("identical: yes"))
        #expect(result.stdout.contains("verify: OK"))
        #expect(result.stdout.contains("gave up after 3 tries"))
        #expect(result.stdout.contains("2026-12-03  1      1"))
    }
}
