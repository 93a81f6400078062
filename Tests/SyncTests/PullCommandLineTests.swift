import ChronicleTestSupport
import Foundation
import Testing

/// Two stores edited and synced only through `chronicle` processes.
@Suite("Command line pull and merge", .timeLimit(.minutes(10)))
struct PullCommandLineTests {
    @Test("two stores name a tag alike offline; after push and pull both list the same tags, and sync status lists the rename on both")
    func twoStoresThroughTheCommandLine() async throws {
        let chronicle = try CommandLineTests.requireExecutable()
        let server = try await TestServer.start(tokens: ["token-a": nil])
        let folder = try TemporaryFolder("cli-merge")
        defer { folder.remove() }
        let (a, b) = (folder.appending("a"), folder.appending("b"))
        func run(_ arguments: [String], store: String) async throws -> String {
            let result = try await Executables.run(chronicle, arguments + ["--store", store], environment: ["CHRONICLE_TOKEN": "token-a"])
            #expect(result.exit.status == 0, "\(arguments): \(result.standardError)")
            return result.standardOutputText
        }
        let remote = ["--remote", server.url.absoluteString]
        let work = try await run(["tag", "add", "--name", "Work", "--color", "#111111"], store: a)
        let other = try await run(["tag", "add", "--name", "work", "--color", "#222222"], store: b)
        _ = try await run(["sync", "push"] + remote, store: a)
        _ = try await run(["sync", "push"] + remote, store: b)
        _ = try await run(["sync", "pull"] + remote, store: a)
        _ = try await run(["sync", "pull"] + remote, store: b)

        let listedA = try await run(["tag", "list", "--json"], store: a)
        let listedB = try await run(["tag", "list", "--json"], store: b)
        #expect(listedA == listedB)
        #expect(listedA.contains("\"name\":\"Work\"") && listedA.contains("\"name\":\"work (2)\""))
        for store in [a, b] {
            let status = try await CommandLineTests.statusJSON(chronicle, store: store)
            let conflicts = try #require(status["conflicts"] as? [[String: String]])
            #expect(conflicts.map { $0["kind"] } == ["tag-renamed"])
            #expect(conflicts.first?["stream"] == "tag-" + other.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(status["pending"] as? Int == 0)
            // Each pushed its one tag and pulled the other's (its own coming back stored nothing).
            let counters = try #require(status["counters"] as? [String: Int])
            #expect(counters == ["pushed": 1, "pulled": 1, "failures": 0, "conflicts": 1], "\(counters)")
        }
        #expect(listedA.contains(work.trimmingCharacters(in: .whitespacesAndNewlines)))
        for store in [a, b] { _ = try await run(["verify", "--deep"], store: store) }
        try await server.stop()
    }
}
