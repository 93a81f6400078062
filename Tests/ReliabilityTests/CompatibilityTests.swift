import ChronicleTestSupport
import Foundation
import Testing

extension Reliability {
    /// Stores written by earlier releases open, read, verify and sync with this one
    /// (docs/FORMAT.md, "Evolving the format"). Each fixture under `Tests/Fixtures` was made
    /// by `Tests/Fixtures/make-store.sh` with that release, beside what it printed.
    @Suite("Stores of earlier releases", .timeLimit(.minutes(10)))
    struct CompatibilityTests {
        static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")

        @Test("a store of 8db3d37 (format 2): same users, todos, stats and events; verify passes; new commands work; the pending event pushes")
        func storeOf8db3d37() async throws {
            let fixture = Self.fixtures.appendingPathComponent("store-8db3d37")
            try await TemporaryFolder.with("compat-8db3d37") { root in
                let store = try Self.copy(fixture, to: root + "/store")
                func printed(_ name: String) throws -> String {
                    try String(contentsOf: fixture.appendingPathComponent(name), encoding: .utf8)
                        .trimmingCharacters(in: .newlines)
                }
                func run(_ arguments: [String]) async throws -> String {
                    let output = try await runCommand(try Products.chronicle(), arguments + ["--store", store], timeout: .seconds(60))
                    #expect(output.exit == .init(status: 0, wasSignalled: false), "\(arguments): \(output.standardError)")
                    return output.standardOutput.joined(separator: "\n")
                }

                // What the old release printed, read by this one: the events byte for byte; a todo
                // now also says which tags it has (none in a store without tags).
                #expect(try await run(["log", "--json"]) == (try printed("log.json")))
                #expect(try await run(["user", "list", "--json"]) == (try printed("users.json")))
                #expect(try await run(["stats", "--json"]) == (try printed("stats.json")))
                let oldTodos = try printed("todos.json")
                #expect(try await run(["todo", "list", "--json"]) == oldTodos.replacingOccurrences(of: "}", with: ",\"tags\":[]}"))
                #expect(try await run(["verify", "--deep"]).hasPrefix("verify: OK"))

                // The old release had acknowledged all but the last event.
                let status = try await run(["sync", "status", "--json"])
                #expect(status.hasPrefix("{\"pending\":1,"), "\(status)")

                // New commands work on it, and its log keeps growing the same chain.
                let tag = try await run(["tag", "add", "--name", "Errands", "--color", "#00AA00"])
                let milk = try #require(try await Self.todoID(titled: "Buy milk", in: store))
                _ = try await run(["todo", "tag", milk, tag])
                #expect(try await run(["todo", "list", "--tag", tag, "--json"]).contains("\"tags\":[\"\(tag)\"]"))

                // The pending event and the two new ones push to a server; nothing acknowledged goes again.
                let pushed = try await Self.pushToNewServer(data: root + "/server") { try await run($0) }
                #expect(pushed.contains("\"eventsAcknowledged\":3,\"accepted\":3,"), "\(pushed)")
                #expect(try await run(["sync", "status", "--json"]).hasPrefix("{\"pending\":0,"))
                #expect(try await run(["verify", "--deep"]).hasPrefix("verify: OK"))
            }
        }

        @Test("a store of e63af5f (format 4, tags, pulled events, a merged tag name): same models, events and conflicts; verify passes; its old commands are not in the undo history, new ones are; the pending events push")
        func storeOfE63af5f() async throws {
            let fixture = Self.fixtures.appendingPathComponent("store-e63af5f")
            try await TemporaryFolder.with("compat-e63af5f") { root in
                let store = try Self.copy(fixture, to: root + "/store")
                func printed(_ name: String) throws -> String {
                    try String(contentsOf: fixture.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .newlines)
                }
                func run(_ arguments: [String], status: Int32 = 0) async throws -> String {
                    let output = try await runCommand(try Products.chronicle(), arguments + ["--store", store], timeout: .seconds(60))
                    #expect(output.exit == .init(status: status, wasSignalled: false), "\(arguments): \(output.standardError)")
                    return status == 0 ? output.standardOutput.joined(separator: "\n") : output.errorLines.joined(separator: "\n")
                }

                for (command, file) in [(["log", "--json"], "log.json"), (["user", "list", "--json"], "users.json"),
                                        (["todo", "list", "--json"], "todos.json"), (["tag", "list", "--json"], "tags.json"),
                                        (["stats", "--json"], "stats.json")] {
                    #expect(try await run(command) == (try printed(file)), "\(command)")
                }
                #expect(try await run(["verify", "--deep"]).hasPrefix("verify: OK"))
                let oldStatus = try JSONSerialization.jsonObject(with: Data(try printed("sync-status.json").utf8)) as? [String: Any]
                let status = try JSONSerialization.jsonObject(with: Data(try await run(["sync", "status", "--json"]).utf8)) as? [String: Any]
                #expect((status?["conflicts"] as? [[String: String]]) == (oldStatus?["conflicts"] as? [[String: String]]))
                #expect((status?["conflicts"] as? [Any])?.count == 1)
                #expect(status?["pulledPosition"] as? Int == oldStatus?["pulledPosition"] as? Int)

                // The old release's commands left no notes: nothing to undo until a new command.
                #expect(try await run(["undo"], status: 1) == "error: nothing to undo")
                let milk = try #require(try await Self.todoID(titled: "Buy milk", in: store))
                _ = try await run(["todo", "complete", milk])
                #expect(try await run(["undo", "--json"]).contains("\"type\":\"TodoReopened\""))

                // This store's unsent events (a memo, the milk, its completion and reopening) push.
                let pushed = try await Self.pushToNewServer(data: root + "/server") { try await run($0) }
                #expect(pushed.contains("\"eventsAcknowledged\":4,\"accepted\":4,"), "\(pushed)")
                #expect(try await run(["sync", "status", "--json"]).hasPrefix("{\"pending\":0,"))
                #expect(try await run(["verify", "--deep"]).hasPrefix("verify: OK"))
            }
        }

        @Test("the first read of an older store's models rebuilds them, with progress on stderr when it is a terminal, and not otherwise")
        func upgradeProgress() async throws {
            let fixture = Self.fixtures.appendingPathComponent("store-e63af5f")
            try await TemporaryFolder.with("compat-upgrade") { root in
                for (name, terminal) in [("piped", false), ("terminal", true)] {
                    let store = try Self.copy(fixture, to: "\(root)/\(name)")
                    let chronicle = try Products.chronicle().path
                    let output: CommandOutput
                    if terminal {
                        // script(1) gives the command a terminal; what it printed comes back on stdout.
                        output = try await runCommand(URL(fileURLWithPath: "/usr/bin/script"),
                                                      ["-qefc", "\(chronicle) user list --json --store \(store)", "/dev/null"],
                                                      timeout: .seconds(60))
                    } else {
                        output = try await runCommand(try Products.chronicle(), ["user", "list", "--json", "--store", store],
                                                      timeout: .seconds(60))
                    }
                    #expect(output.exit == .init(status: 0, wasSignalled: false), "\(name): \(output.standardError)")
                    let everything = output.standardOutput.joined(separator: "\n") + output.standardError
                    #expect(everything.contains("upgrading read models") == terminal, "\(name): \(everything)")
                    #expect(output.standardOutput.joined().contains(#""name":"Ada""#))
                }
            }
        }

        /// A store made of `fixture`'s two environments, at `path`.
        static func copy(_ fixture: URL, to path: String) throws -> String {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for environment in ["log", "models"] {
                try FileManager.default.copyItem(atPath: fixture.appendingPathComponent(environment).path, toPath: "\(path)/\(environment)")
            }
            return path
        }

        /// Starts a reference server of its own on `data`, pushes the store to it with `run`
        /// (`sync push --json`), and returns what the push printed.
        static func pushToNewServer(data: String, run: ([String]) async throws -> String) async throws -> String {
            let server = try await ChildProcess(try Products.chronicle(),
                                                ["serve", "--port", "0", "--data", data, "--token", "compat", "--log-level", "error"])
            defer { server.kill() }
            let listening = try await server.firstLine(timeout: .seconds(60), what: "the server's address") {
                $0.hasPrefix("listening on ")
            }
            let address = try #require(listening?.split(separator: " ").dropFirst(2).first.map(String.init))
            return try await run(["sync", "push", "--remote", address, "--token", "compat", "--json"])
        }

        /// The id of the live todo with `title`, read with the new release.
        static func todoID(titled title: String, in store: String) async throws -> String? {
            let output = try await runCommand(try Products.chronicle(), ["todo", "list", "--json", "--store", store])
            let todos = try JSONSerialization.jsonObject(with: Data(output.standardOutput.joined().utf8)) as? [[String: Any]]
            return todos?.first { $0["title"] as? String == title }?["id"] as? String
        }
    }
}
