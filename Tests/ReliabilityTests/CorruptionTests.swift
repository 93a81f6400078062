@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

extension Reliability {
    /// Damaged stores met by the `chronicle` command line: flipped bytes, a truncated file, a
    /// store from a newer Chronicle, lock files left by dead processes.
    ///
    /// `verify` names what is wrong and where. Every other command refuses with one `error:`
    /// line: no signal, nothing on stdout, and not a byte written to the store's data files.
    @Suite("Corruption", .timeLimit(.minutes(10)))
    struct CorruptionTests {
        /// A small store with users, todos and caught-up models, and a few of its ids.
        struct Fixture {
            var path: String
            var user: UUID
            var todo: UUID
            var head: UInt64
        }

        static func makeStore(_ path: String) async throws -> Fixture {
            let store = try ChronicleStore(directory: path, backgroundProjections: false)
            let ada = try await store.createUser(name: "Ada", age: 36)
            let bob = try await store.createUser(name: "Bob", age: 41)
            var todos: [UUID] = []
            for (index, day) in ["2026-12-01", "2026-12-01", "2026-12-02", "2026-12-03"].enumerated() {
                todos.append(try await store.createTodo(title: "Todo \(index)", deadline: day, userId: index % 2 == 0 ? ada.id : bob.id).id)
            }
            try await store.completeTodo(todos[0])
            try await store.updateTodo(todos[1], deadline: "2026-12-04")
            try await store.deleteTodo(todos[3])
            try await store.refresh()
            let head = try store.log.head()
            await store.close()
            return Fixture(path: path, user: ada.id, todo: todos[2], head: head)
        }

        /// Every command but `verify`, each one that reads or writes the store.
        static func commands(_ fixture: Fixture) -> [[String]] {
            [
                ["log"], ["log", "--json"], ["log", "--ndjson", "--limit", "2"],
                ["user", "add", "--name", "Eve", "--age", "30"], ["user", "list"], ["user", "show", fixture.user.uuidString],
                ["todo", "add", "--title", "Bread", "--deadline", "2026-12-02"], ["todo", "list"],
                ["todo", "complete", fixture.todo.uuidString],
                ["stats"], ["replay", "--json"], ["rebuild"],
                ["sync", "push", "--remote", "http://127.0.0.1:9", "--max-attempts", "1"], ["sync", "status"],
            ]
        }

        static func chronicle(_ arguments: [String], store: String) async throws -> CommandOutput {
            try await runCommand(try Products.chronicle(), arguments + ["--store", store], timeout: .seconds(60))
        }

        /// The bytes of the store's two data files (the lock files change on every open, by design).
        static func dataFiles(_ store: String) throws -> [Data] {
            try ["log", "entities"].map { try Data(contentsOf: URL(fileURLWithPath: "\(store)/\($0)/data.mdb")) }
        }

        /// Runs every command on the damaged store at `store` and expects each to refuse with
        /// one error line containing `reason`, leaving the data files as they were.
        static func expectEveryCommandRefuses(_ fixture: Fixture, store: String, reason: String,
                                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let before = try dataFiles(store)
            for command in commands(fixture) {
                let output = try await chronicle(command, store: store)
                let shown = "chronicle \(command.joined(separator: " "))"
                #expect(!output.exit.wasSignalled, "\(shown) crashed: \(output.standardError)", sourceLocation: sourceLocation)
                #expect(output.exit.status != 0, "\(shown) did not refuse", sourceLocation: sourceLocation)
                #expect(output.standardOutput.isEmpty, "\(shown) printed \(output.standardOutput)", sourceLocation: sourceLocation)
                #expect(output.errorLines.count == 1, "\(shown): \(output.standardError)", sourceLocation: sourceLocation)
                let line = output.errorLines.first ?? ""
                #expect(line.hasPrefix("error: ") && line.contains(reason), "\(shown): \(line)", sourceLocation: sourceLocation)
            }
            #expect(try dataFiles(store) == before, "a refused command wrote to the store", sourceLocation: sourceLocation)
        }

        /// Flips one bit of every copy of `record` in `file` (LMDB's copy-on-write leaves old
        /// copies of a page in free pages, so the live one is among them); returns how many.
        @discardableResult
        static func flip(_ record: [UInt8], at offset: Int, in file: String) throws -> Int {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            var found = 0
            var start = bytes.startIndex
            while let range = bytes.range(of: Data(record), in: start..<bytes.endIndex) {
                bytes[range.lowerBound + offset] ^= 0x04
                found += 1
                start = range.upperBound
            }
            try bytes.write(to: URL(fileURLWithPath: file))
            return found
        }

        static func record(at position: UInt64, of store: String) throws -> [UInt8] {
            try #require(try RawLog.with(store + "/log") { raw in try raw.record(at: position) })
        }

        // MARK: - Tests

        @Test("a flipped bit in the last record: verify names it, every other command refuses")
        func flippedBitInTheLastRecord() async throws {
            try await TemporaryFolder.with("flip-last") { root in
                let fixture = try await Self.makeStore(root + "/store")
                let last = try Self.record(at: fixture.head, of: fixture.path)
                #expect(try Self.flip(last, at: last.count - 3, in: fixture.path + "/log/data.mdb") >= 1)

                let verify = try await Self.chronicle(["verify"], store: fixture.path)
                #expect(verify.exit.status != 0 && !verify.exit.wasSignalled)
                #expect(verify.errorLines == ["error: store is damaged at position \(fixture.head): checksum: the record's bytes do not match its checksum"])
                #expect(verify.standardOutput.first == "verify: FAILED at position \(fixture.head) (checksum): the record's bytes do not match its checksum")
                try await Self.expectEveryCommandRefuses(fixture, store: fixture.path, reason: "damaged at position \(fixture.head)")
            }
        }

        @Test("a flipped bit deep in the log: verify names it, every command that reads it refuses")
        func flippedBitInAMiddleRecord() async throws {
            try await TemporaryFolder.with("flip-middle") { root in
                let fixture = try await Self.makeStore(root + "/store")
                let record = try Self.record(at: 3, of: fixture.path)
                #expect(try Self.flip(record, at: 40, in: fixture.path + "/log/data.mdb") >= 1)   // inside the event id

                let verify = try await Self.chronicle(["verify", "--json"], store: fixture.path)
                #expect(verify.exit.status != 0 && !verify.exit.wasSignalled)
                let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.joined().utf8)) as? [String: Any])
                let problem = try #require(report["problem"] as? [String: Any])
                #expect(problem["position"] as? Int == 3)
                #expect(problem["cause"] as? String == "checksum")

                // The head is intact, so the cheap check at open passes: reads refuse when they reach
                // the record (every read checks its checksum), never printing a wrong event.
                let log = try Data(contentsOf: URL(fileURLWithPath: fixture.path + "/log/data.mdb"))
                for command in [["log"], ["log", "--json"], ["log", "--after", "2", "--limit", "1", "--ndjson"], ["replay", "--json"],
                                ["rebuild"], ["sync", "push", "--remote", "http://127.0.0.1:9", "--max-attempts", "1"]] {
                    let output = try await Self.chronicle(command, store: fixture.path)
                    let shown = "chronicle \(command.joined(separator: " "))"
                    #expect(output.exit.status != 0 && !output.exit.wasSignalled, "\(shown): \(output.exit)")
                    #expect(output.standardOutput.isEmpty, "\(shown) printed \(output.standardOutput)")
                    #expect(output.errorLines.count == 1, "\(shown): \(output.standardError)")
                    #expect(output.errorLines.first?.contains("the store is damaged at position 3: checksum mismatch") == true,
                            "\(shown): \(output.standardError)")
                    if command[0] != "sync" {   // sync keeps its own state in the log's environment
                        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path + "/log/data.mdb")) == log, "\(shown) wrote to the log")
                    }
                }
                // Events before the damage stay readable.
                let first = try await Self.chronicle(["log", "--limit", "2", "--ndjson"], store: fixture.path)
                #expect(first.exit.status == 0 && first.standardOutput.count == 2)
            }
        }

        @Test("single bit flips anywhere in the log file: never a crash, never a wrong listing")
        func bitFlipSweep() async throws {
            try await TemporaryFolder.with("flip-sweep") { root in
                let fixture = try await Self.makeStore(root + "/store")
                let intact = try await Self.chronicle(["log", "--ndjson"], store: fixture.path)
                try #require(intact.exit.status == 0)
                let file = try Data(contentsOf: URL(fileURLWithPath: fixture.path + "/log/data.mdb"))
                // Most of a small LMDB file is free space: every other flip lands in the live leaf
                // page of `events` (node headers, keys and records), found by its newest record.
                let last = try Self.record(at: fixture.head, of: fixture.path)
                let leaf = try #require(file.range(of: Data(last))).lowerBound / 4096 * 4096
                var random = TestSeed.generator(for: "CorruptionTests.flips")
                var refused = 0
                for round in 0..<32 {
                    let copy = root + "/copy-\(round)"
                    try FileManager.default.copyItem(atPath: fixture.path, toPath: copy)
                    defer { try? FileManager.default.removeItem(atPath: copy) }
                    let offset = round.isMultiple(of: 2) ? leaf + Int.random(in: 0..<4096, using: &random)
                                                         : Int.random(in: 0..<file.count, using: &random)
                    var damaged = file
                    damaged[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                    try damaged.write(to: URL(fileURLWithPath: copy + "/log/data.mdb"))
                    let context = "bit flip at byte \(offset) (page \(offset / 4096))"

                    let listing = try await Self.chronicle(["log", "--ndjson"], store: copy)
                    #expect(!listing.exit.wasSignalled, "\(context): log crashed: \(listing.standardError)")
                    if listing.exit.status == 0 {
                        // The flip hit bytes the listing does not depend on.
                        #expect(listing.standardOutput == intact.standardOutput, "\(context): log printed altered events")
                    } else {
                        refused += 1
                        #expect(listing.standardOutput.isEmpty, "\(context): log printed \(listing.standardOutput)")
                        #expect(listing.errorLines.count == 1 && listing.errorLines.first?.hasPrefix("error: ") == true,
                                "\(context): \(listing.standardError)")
                    }
                    let verify = try await Self.chronicle(["verify"], store: copy)
                    #expect(!verify.exit.wasSignalled, "\(context): verify crashed: \(verify.standardError)")
                    #expect(verify.exit.status == 0 || verify.errorLines.count == 1, "\(context): \(verify.standardError)")
                    if listing.exit.status != 0 {
                        #expect(verify.exit.status != 0, "\(context): log refused what verify passed: \(listing.standardError)")
                    }
                    // A compacting backup walks every page: never a signal either.
                    let backup = try await Self.chronicle(["backup", copy + "-backup"], store: copy)
                    defer { try? FileManager.default.removeItem(atPath: copy + "-backup") }
                    #expect(!backup.exit.wasSignalled, "\(context): backup crashed: \(backup.standardError)")
                    #expect(backup.exit.status == 0 || backup.errorLines.count == 1, "\(context): \(backup.standardError)")
                }
                #expect(refused > 0, "no flip hit anything the listing reads: the sweep proves nothing")
            }
        }

        @Test("a record whose stored size runs past its page and the file: refused as damaged, never SIGBUS")
        func recordSizePastTheFile() async throws {
            // Found by the bit-flip sweep on a new seed: a flip in the high half of a leaf node's
            // data size made LMDB hand back a value running past the file's end, and the first
            // read of it killed the process with SIGBUS.
            try await Self.expectLeafDamageRefused("size-past-file") { file, leaf in
                // LMDB's leaf page: a 16-byte header, then each node's offset; a node begins with
                // its data size, low then high 16 bits, little-endian.
                let node = leaf + (Int(file[leaf + 16]) | Int(file[leaf + 17]) << 8)
                file[node + 3] ^= 0x01   // the data size grows by 16 MiB
            }
        }

        @Test("the newest record's key cut to 0 bytes: refused as damaged, never read past")
        func lastKeyCutShort() async throws {
            // Found by the bit-flip sweep on a new seed (CHRONICLE_SEED=0xb5edba469b52ec40): a
            // flip in a leaf node's key size made the head's key shorter than a position, and
            // reading it stopped the process on a bounds check.
            try await Self.expectLeafDamageRefused("key-cut-short") { file, leaf in
                // LMDB's leaf page: a 16-byte header whose bytes 12–13 end the node offsets; a node
                // is its data size (4 bytes), flags (2), key size (2, little-endian), key, data.
                let lower = Int(file[leaf + 12]) | Int(file[leaf + 13]) << 8
                let slot = leaf + lower - 2   // the last node's offset: the newest position
                let node = leaf + (Int(file[slot]) | Int(file[slot + 1]) << 8)
                try #require(file[node + 6] == 8 && file[node + 7] == 0, "the node's key is not a position")
                file[node + 6] = 0
            }
        }

        @Test("the newest node flagged as holding duplicates in a table without them: refused, never SIGSEGV")
        func nodeFlaggedAsDuplicates() async throws {
            // Found by the bit-flip sweep in CI (CHRONICLE_SEED=0x94cadcb29d67fad5): a flip in a
            // leaf node's flags marked it F_DUPDATA, and LMDB, which trusts the flag, followed the
            // table's missing duplicate cursor (a null pointer) and killed the process. Every LMDB
            // call now runs under a fault guard that turns the fault into "damaged".
            try await Self.expectLeafDamageRefused("dupdata-flag") { file, leaf in
                // A node is its data size (4 bytes), flags (2, little-endian), key size (2), key, data.
                let lower = Int(file[leaf + 12]) | Int(file[leaf + 13]) << 8
                let slot = leaf + lower - 2
                let node = leaf + (Int(file[slot]) | Int(file[slot + 1]) << 8)
                file[node + 4] |= 0x04   // F_DUPDATA
            }
        }

        @Test("a table whose root page names the meta pages: refused as damaged, never an abort")
        func tableRootOnAMetaPage() async throws {
            // Found by the bit-flip sweep (CHRONICLE_SEED=0xf925f45ee4dbbec9, a flip at byte 69059):
            // a table's record in LMDB's main table named page 1 as its root, and LMDB's own check
            // ("root > 1") aborted verify and backup. Its checks inside a guarded call now return
            // "damaged" as a fault there does.
            try await Self.expectLeafDamageRefused("root-on-meta") { file, _ in
                // A named table's record is a main-table node: data size (4 bytes; 48), flags (2;
                // F_SUBDATA), key size (2), the name, then the table's record, whose last 8 bytes
                // are its root page. Every copy of the node is damaged (older ones are free pages).
                let name = Data("events".utf8)
                var damaged = 0
                var from = file.startIndex
                while let found = file.range(of: name, in: from..<file.endIndex) {
                    from = found.upperBound
                    let node = found.lowerBound - 8
                    guard node >= 0, file[node] == 48, file[node + 1] == 0, file[node + 4] == 0x02,
                          file[node + 6] == UInt8(name.count), file[node + 7] == 0 else { continue }
                    let root = found.upperBound + 40
                    file.replaceSubrange(root..<root + 8, with: [1, 0, 0, 0, 0, 0, 0, 0])
                    damaged += 1
                }
                try #require(damaged > 0, "no record of the events table found")
            }
        }

        /// Damages a new store's data file with `damage` (given the file and the offset of the
        /// leaf page that holds the newest record), then expects `log`, `verify` and `backup`
        /// (a compacting copy, which walks every page) to refuse the store as damaged, one line
        /// each, never stopped by a signal.
        static func expectLeafDamageRefused(_ name: String, _ damage: (inout Data, Int) throws -> Void) async throws {
            try await TemporaryFolder.with(name) { root in
                let fixture = try await Self.makeStore(root + "/store")
                let path = fixture.path + "/log/data.mdb"
                var file = try Data(contentsOf: URL(fileURLWithPath: path))
                let last = try Self.record(at: fixture.head, of: fixture.path)
                let leaf = try #require(file.range(of: Data(last))).lowerBound / 4096 * 4096
                try damage(&file, leaf)
                try file.write(to: URL(fileURLWithPath: path))
                // A backup copies pages: damage inside a value may go with the copy (verify finds
                // it there), but it never stops the process.
                let backup = try await Self.chronicle(["backup", root + "/copy"], store: fixture.path)
                #expect(!backup.exit.wasSignalled, "backup: \(backup.standardError)")
                #expect(backup.exit.status == 0 || (backup.exit.status == 1 && backup.errorLines.count == 1
                        && backup.errorLines[0].contains("damaged")), "backup: \(backup.standardError)")
                for command in [["log", "--ndjson"], ["verify"]] {
                    let output = try await Self.chronicle(command, store: fixture.path)
                    #expect(!output.exit.wasSignalled, "\(command): \(output.standardError)")
                    #expect(output.exit.status == 1 && output.errorLines.count == 1
                            && output.errorLines[0].contains("damaged"), "\(command): \(output.standardError)")
                }
            }
        }

        @Test("a truncated data file: verify names the file and sizes, every other command refuses", arguments: [0.5, 0.8])
        func truncatedDataFile(fraction: Double) async throws {
            try await TemporaryFolder.with("truncated") { root in
                let fixture = try await Self.makeStore(root + "/store")
                let file = fixture.path + "/log/data.mdb"
                let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
                let cut = Int(Double(size) * fraction) + 100   // not a whole number of pages
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
                try handle.truncate(atOffset: UInt64(cut))
                try handle.close()

                let verify = try await Self.chronicle(["verify"], store: fixture.path)
                #expect(verify.exit.status != 0 && !verify.exit.wasSignalled, "\(verify.exit): \(verify.standardError)")
                #expect(verify.errorLines == ["error: cannot open store at \(fixture.path)/log: the store's LMDB file is damaged: "
                                              + "it is truncated to \(cut) bytes, its last commit needs \(size)"])
                try await Self.expectEveryCommandRefuses(fixture, store: fixture.path, reason: "is truncated to \(cut) bytes")
            }
        }

        @Test("a store from a newer Chronicle: every command, verify included, asks for an upgrade")
        func newerFormat() async throws {
            try await TemporaryFolder.with("newer") { root in
                let fixture = try await Self.makeStore(root + "/store")
                try RawLog.with(fixture.path + "/log") { raw in try raw.setMeta("format", [9]) }
                let message = "error: this store uses format 9; this chronicle reads up to format 8: upgrade chronicle"
                let before = try Self.dataFiles(fixture.path)
                let verify = try await Self.chronicle(["verify"], store: fixture.path)
                #expect(verify.exit.status != 0 && !verify.exit.wasSignalled)
                #expect(verify.errorLines == [message])
                #expect(try Self.dataFiles(fixture.path) == before)
                try await Self.expectEveryCommandRefuses(fixture, store: fixture.path, reason: "upgrade chronicle")
            }
        }

        @Test("a process killed holding a read transaction or the write lock leaves nothing in the way",
              arguments: ["read", "write"])
        func lockLeftByADeadProcess(transaction: String) async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("dead-\(transaction)") { root in
                let fixture = try await Self.makeStore(root + "/store")
                for env in ["log", "entities"] {
                    let holder = try await ChildProcess(torture, ["hold", "--env", "\(fixture.path)/\(env)", "--txn", transaction])
                    #expect(try await holder.firstLine { $0 == "holding" } != nil, "\(holder.standardErrorText)")
                    holder.kill()
                    #expect(await holder.waitForExit().wasSignalled)
                }
                // A dead writer's lock would hang the next writer forever without LMDB's robust mutex;
                // a dead reader's slot is cleared when the store opens.
                for command in [["user", "add", "--name", "Eve", "--age", "30"], ["todo", "list"], ["stats"], ["log"], ["rebuild"]] {
                    let output = try await Self.chronicle(command, store: fixture.path)
                    #expect(output.exit == .init(status: 0, wasSignalled: false),
                            "chronicle \(command.joined(separator: " ")): \(output.standardError)")
                }
                let verify = try await Self.chronicle(["verify", "--deep"], store: fixture.path)
                #expect(verify.exit.status == 0, "\(verify.standardOutput) \(verify.standardError)")
                #expect(verify.standardOutput.first?.hasPrefix("verify: OK: \(fixture.head + 1) events") == true)
            }
        }

        @Test("a lock file full of garbage, left with no process holding it, is rebuilt on open")
        func garbageLockFile() async throws {
            try await TemporaryFolder.with("garbage-lock") { root in
                let fixture = try await Self.makeStore(root + "/store")
                var random = TestSeed.generator(for: "CorruptionTests.garbageLockFile")
                for env in ["log", "entities"] {
                    let path = "\(fixture.path)/\(env)/lock.mdb"
                    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
                    try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: path))
                }
                let add = try await Self.chronicle(["user", "add", "--name", "Eve", "--age", "30"], store: fixture.path)
                #expect(add.exit == .init(status: 0, wasSignalled: false), "\(add.standardError)")
                let verify = try await Self.chronicle(["verify", "--deep"], store: fixture.path)
                #expect(verify.exit.status == 0, "\(verify.standardOutput) \(verify.standardError)")
            }
        }
    }
}
