import ChronicleTestSupport
import Foundation
import Testing

/// `backup`, `export` and `import`, and progress that stays off stdout and off files.
@Suite("chronicle backup, export and import", .timeLimit(.minutes(10)))
struct OperatingCLITests {
    /// Users, todos, tags and stats as JSON, the way a script compares two stores.
    static func models(_ cli: CLIRunner, store: String) async throws -> [String] {
        var listed: [String] = []
        for command in [["user", "list"], ["todo", "list"], ["tag", "list"], ["stats"]] {
            let result = try await cli.run(command + ["--json", "--store", store], useStore: false)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            listed.append(result.stdout)
        }
        return listed
    }

    @Test("a backup taken while another process keeps appending is a store of its own: verify --deep passes, its models match its log")
    func hotBackup() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let ada = try await cli.run(["user", "add", "--name", "Ada", "--age", "36"]).trimmed
        // A writer appending all the time the backups run.
        let writer = Task {
            var added = 0
            while !Task.isCancelled {
                let result = try await cli.run(["todo", "add", "--title", "T\(added)", "--deadline", "2026-12-01", "--user", ada])
                #expect(result.status == 0, "\(result.stderr)")
                added += 1
            }
            return added
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var positions: [UInt64] = []
        for index in 0..<3 {
            let copy = folder + "/copy-\(index)"
            let backup = try await cli.run(["backup", copy, "--json"])
            #expect(backup.status == 0, "\(backup.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any]
            positions.append(try #require(object?["position"] as? UInt64))
            let verified = try await cli.run(["verify", "--deep", "--store", copy], useStore: false)
            #expect(verified.status == 0, "copy \(index): \(verified.stdout) \(verified.stderr)")
            // The copy's models are those of its own log: one user, a todo per event after the first.
            let todos = try await cli.run(["todo", "list", "--json", "--store", copy], useStore: false)
            let listed = try JSONSerialization.jsonObject(with: Data(todos.stdout.utf8)) as? [Any]
            #expect(UInt64(listed?.count ?? -1) == positions[index] - 1)
        }
        writer.cancel()
        _ = try? await writer.value
        #expect(positions == positions.sorted())
        // A backup never goes into a folder that holds something.
        let refused = try await cli.run(["backup", folder + "/copy-0"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: cannot use") && refused.stderr.contains("not empty"))
    }

    @Test("export then import into a new store gives the same users, todos, tags and stats; a second import stores nothing")
    func exportImportRoundTrip() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let ada = try await cli.run(["user", "add", "--name", "Ada", "--age", "36"]).trimmed
        let todo = try await cli.run(["todo", "add", "--title", "Notes", "--deadline", "2026-12-01", "--user", ada]).trimmed
        let work = try await cli.run(["tag", "add", "--name", "Work", "--color", "#112233"]).trimmed
        _ = try await cli.run(["todo", "tag", todo, work])
        _ = try await cli.run(["todo", "complete", todo])
        let exported = try await cli.run(["export"])
        #expect(exported.status == 0)
        #expect(exported.stderr.isEmpty, "no progress when stderr is not a terminal: \(exported.stderr)")
        #expect(exported.stdout.split(separator: "\n").count == 5)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-import-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/events.ndjson"
        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let other = folder + "/other"
        let first = try await cli.run(["import", file, "--json", "--store", other], useStore: false)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.trimmed == #"{"accepted":5,"duplicates":0,"position":5}"#)
        #expect(try await Self.models(cli, store: other) == Self.models(cli, store: cli.store))
        let again = try await cli.run(["import", file, "--json", "--store", other], useStore: false)
        #expect(again.trimmed == #"{"accepted":0,"duplicates":5,"position":5}"#)
        // The imported tag's name is taken in the new store too.
        let clash = try await cli.run(["tag", "add", "--name", "WORK", "--color", "#000000", "--store", other], useStore: false)
        #expect(clash.status == 1)
        #expect(try await cli.run(["verify", "--deep", "--store", other], useStore: false).status == 0)
        // export --after: only the later events.
        let tail = try await cli.run(["export", "--after", "3"])
        #expect(tail.stdout.split(separator: "\n").count == 2)
    }

    @Test("a command that wrote indexes the events after the stream index's checkpoint as it exits, when there are many")
    func closingCheckpoint() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        _ = try await cli.run(["user", "add", "--name", "Ada", "--age", "36"])
        // 1,200 events appended by a process that ended without closing the log.
        let burst = try await runCommand(try Products.torture(), ["append-burst", "--store", cli.store, "--count", "1200",
                                                                  "--stream-prefix", "burst", "--batch", "100", "--exit-unclosed"])
        #expect(burst.standardOutput == ["done 1201"], "\(burst.standardError)")
        try RawLog.with(cli.store + "/log") { raw throws in #expect(try raw.meta("streams-indexed") == RawLog.key(0)) }
        // A reading command leaves the index as it is; the next writing one moves its checkpoint to the head.
        #expect(try await cli.run(["user", "list"]).status == 0)
        try RawLog.with(cli.store + "/log") { raw throws in #expect(try raw.meta("streams-indexed") == RawLog.key(0)) }
        #expect(try await cli.run(["user", "add", "--name", "Grace", "--age", "45"]).status == 0)
        try RawLog.with(cli.store + "/log") { raw throws in
            #expect(try raw.meta("streams-indexed") == RawLog.key(1_202))
            #expect(try raw.counts().streams == 1_202)
        }
        #expect(try await cli.run(["verify", "--deep"]).status == 0)
    }

    @Test("import is all or nothing: one bad line refuses the file, names the line, exits 1 and stores nothing")
    func importAllOrNothing() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        _ = try await cli.run(["user", "add", "--name", "Ada", "--age", "36"])
        let exported = try await cli.run(["export"]).stdout
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-import-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/events.ndjson"
        let broken = exported + #"{"id":"not-a-uuid","stream":"user-x","version":1,"type":"UserCreated","timestamp":"2026-11-23T00:00:00.000Z","origin":"o","data":{}}"# + "\n"
        try Data(broken.utf8).write(to: URL(fileURLWithPath: file))
        let other = folder + "/other"
        let refused = try await cli.run(["import", file, "--store", other], useStore: false)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: \(file), line 2: "))
        #expect(refused.stderr.hasSuffix("nothing was imported\n"))
        let log = try await cli.run(["log", "--json", "--store", other], useStore: false)
        #expect(log.trimmed == "[]")
    }

    @Test("rebuild's progress never reaches a file: no carriage returns or escape codes on a redirected stderr, none on stdout")
    func progressOnlyOnATerminal() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        for index in 0..<20 { _ = try await cli.run(["user", "add", "--name", "U\(index)", "--age", "20"]) }
        for arguments in [["rebuild"], ["rebuild", "--json"]] {
            let rebuilt = try await cli.run(arguments)
            #expect(rebuilt.status == 0)
            for text in [rebuilt.stdout, rebuilt.stderr] {
                #expect(!text.contains("\r") && !text.contains("\u{1B}"), "\(arguments): \(text.debugDescription)")
            }
        }
    }

    @Test("a store holding one event takes at most 4 MiB on disk (the models' map starts small)")
    func smallStoreFootprint() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        #expect(try await cli.run(["user", "add", "--name", "Ada", "--age", "36"]).status == 0)
        var bytes = 0
        let files = FileManager.default.enumerator(atPath: cli.store)
        while let file = files?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: cli.store + "/" + file)
            if attributes[.type] as? FileAttributeType == .typeRegular { bytes += attributes[.size] as? Int ?? 0 }
        }
        #expect(bytes > 0)
        #expect(bytes <= 4 << 20, "\(bytes) bytes")
    }
}
