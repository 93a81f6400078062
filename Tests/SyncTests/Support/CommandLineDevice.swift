import ChronicleReferee
import ChronicleTestSupport
import Foundation

/// A device that is a store driven by `chronicle` processes, each run with the device's wall
/// clock off by `clockOffset` seconds (`Tests/Fixtures/wall-clock-offset`, loaded with
/// LD_PRELOAD): separate processes writing and syncing beside the in-process devices, with
/// clocks hours off.
struct CommandLineDevice: Sendable {
    let name: String
    let folder: TemporaryFolder
    /// How far the device's wall clock is off, in seconds (negative: behind).
    let clockOffset: Int
    let remote: URL
    let token: String

    init(name: String, clockOffset: Int, remote: URL, token: String) throws {
        self.name = name
        self.folder = try TemporaryFolder("cli-device-\(name)")
        self.clockOffset = clockOffset
        self.remote = remote
        self.token = token
    }

    /// Runs `chronicle ARGUMENTS --store FOLDER` under the device's clock.
    func run(_ arguments: [String]) async throws -> CommandOutput {
        try await runCommand(try Products.chronicle(), arguments + ["--store", folder.path],
                             environment: ["LD_PRELOAD": try await WallClockOffset.shared.library(),
                                           "CHRONICLE_WALL_CLOCK_OFFSET": "\(clockOffset)"])
    }

    /// A push or a pull with few tries: a server down or a faulted request is fine here;
    /// a usage error, a crash or a damaged store is not.
    /// With `mustComplete`, only a complete sync (exit 0) will do.
    func sync(push: Bool, mustComplete: Bool = false) async throws -> String {
        let verb = push ? "push" : "pull"
        let output = try await run(["sync", verb, "--remote", remote.absoluteString, "--token", token, "--max-attempts", "3",
                                    "--retry-base-ms", "1", "--retry-max-ms", "50", "--jitter", "none"])
        let complete = output.exit == .init(status: 0, wasSignalled: false)
        guard complete || (!mustComplete && output.exit == .init(status: 1, wasSignalled: false)),
              !output.standardError.contains("damaged") else {
            throw CommandLineDeviceError("\(name): sync \(verb) ended \(output.exit): \(output.standardError)")
        }
        return "sync \(verb) -> \(output.exit)"
    }

    /// A random command on what the device shows now; a refusal by a rule (exit 1, one
    /// `error:` line) is part of the game, anything else fails the run.
    func randomCommand(_ random: inout SeededGenerator) async throws -> String {
        let shown = try await self.shown(conflicts: false)
        func pick(_ ids: [String]) -> String? { ids.isEmpty ? nil : ids.sorted()[Int.random(in: 0..<ids.count, using: &random)] }
        let users = Array(shown.users.keys), todos = Array(shown.todos.keys), tags = Array(shown.tags.keys)
        let tagNames = ["Work", "work", "WORK", "Home"], days = ["2026-12-01", "2026-12-02"]
        var arguments: [String]
        switch Int.random(in: 0..<12, using: &random) {
        case 0: arguments = ["user", "add", "--name", ["Ada", "Grace"].randomElement(using: &random)!, "--age", "\(Int.random(in: 1...99, using: &random))"]
        case 1: arguments = pick(users).map { ["user", "update", $0, "--age", "\(Int.random(in: 1...99, using: &random))"] } ?? ["user", "add", "--name", "Lin", "--age", "7"]
        case 2: arguments = pick(users).map { ["user", "delete", $0] } ?? ["user", "add", "--name", "Bo", "--age", "8"]
        case 3, 4:
            arguments = ["todo", "add", "--title", ["Buy milk", "Call Bob"].randomElement(using: &random)!, "--deadline", days.randomElement(using: &random)!]
            if let user = pick(users), Bool.random(using: &random) { arguments += ["--user", user] }
        case 5: arguments = pick(todos).map { ["todo", "update", $0, "--title", "Title \(Int.random(in: 0..<5, using: &random))", "--memo", ["", "soon"].randomElement(using: &random)!] } ?? ["todo", "add", "--title", "T", "--deadline", days[0]]
        case 6: arguments = pick(todos).map { ["todo", Bool.random(using: &random) ? "complete" : "reopen", $0] } ?? ["tag", "add", "--name", "Home", "--color", "#00aa00"]
        case 7: arguments = pick(todos).map { ["todo", "delete", $0] } ?? ["tag", "add", "--name", "Work", "--color", "#ff8800"]
        case 8: arguments = ["tag", "add", "--name", tagNames.randomElement(using: &random)!, "--color", "#123abc"]
        case 9: arguments = pick(tags).map { ["tag", "update", $0, "--name", tagNames.randomElement(using: &random)!] } ?? ["tag", "add", "--name", "Home", "--color", "#000000"]
        case 10:
            if let todo = pick(todos), let tag = pick(tags) { arguments = ["todo", Bool.random(using: &random) ? "tag" : "untag", todo, tag] } else { arguments = ["undo"] }
        default: arguments = [Bool.random(using: &random) ? "undo" : "redo"]
        }
        let output = try await run(arguments)
        let command = arguments.joined(separator: " ")
        switch output.exit {
        case .init(status: 0, wasSignalled: false): return "\(command) -> ok"
        case .init(status: 1, wasSignalled: false) where output.errorLines.count == 1 && output.errorLines[0].hasPrefix("error: ")
            && !Self.notARule.contains(where: output.standardError.contains):
            return "\(command) -> refused: \(output.errorLines[0])"
        default:
            throw CommandLineDeviceError("\(name): \(command) ended \(output.exit), not by a rule: \(output.standardError)")
        }
    }

    /// Failures that exit 1 like a rule's refusal but are not one.
    static let notARule = ["damaged", "cannot open", "storage", "cannot read"]

    /// What the device shows, read from its `--json` lists and (with `conflicts`) the
    /// `sync status --json` conflicts.
    func shown(conflicts: Bool = true) async throws -> RefereeState {
        func list(_ arguments: [String]) async throws -> [[String: Any]] {
            let output = try await run(arguments + ["--json"])
            guard output.exit.status == 0, !output.exit.wasSignalled,
                  let items = try JSONSerialization.jsonObject(with: Data(output.standardOutputText.utf8)) as? [[String: Any]] else {
                throw CommandLineDeviceError("\(name): \(arguments.joined(separator: " ")) --json ended \(output.exit): \(output.standardError)")
            }
            return items
        }
        var state = RefereeState()
        for user in try await list(["user", "list"]) {
            let id = user["id"] as? String ?? ""
            state.users[id] = RefereeUser(id: id, name: user["name"] as? String ?? "", age: user["age"] as? Int ?? -1)
        }
        for todo in try await list(["todo", "list"]) {
            let id = todo["id"] as? String ?? ""
            state.todos[id] = RefereeTodo(id: id, title: todo["title"] as? String ?? "", deadline: todo["deadline"] as? String ?? "",
                                          userId: todo["userId"] as? String, memo: todo["memo"] as? String,
                                          isCompleted: todo["isCompleted"] as? Bool ?? false,
                                          tags: (todo["tags"] as? [String] ?? []).sorted())
        }
        for tag in try await list(["tag", "list"]) {
            let id = tag["id"] as? String ?? ""
            state.tags[id] = RefereeTag(id: id, name: tag["name"] as? String ?? "", color: tag["color"] as? String ?? "")
        }
        for stat in try await list(["stats"]) {
            let date = stat["date"] as? String ?? ""
            state.stats[date] = RefereeStat(date: date, total: stat["total"] as? Int ?? -1, completed: stat["completed"] as? Int ?? -1)
        }
        guard conflicts else { return state }
        let status = try await run(["sync", "status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.standardOutputText.utf8)) as? [String: Any]
        for conflict in object?["conflicts"] as? [[String: Any]] ?? [] where conflict["kind"] as? String == RefereeTagRenamed.kind {
            let stream = conflict["stream"] as? String ?? ""
            state.tagRenamed.insert(RefereeTagRenamed(stream: stream, shownName: state.tags[String(stream.dropFirst("tag-".count))]?.name ?? "(not live)"))
        }
        return state
    }
}

struct CommandLineDeviceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The wall-clock shim (`Tests/Fixtures/wall-clock-offset/wall-clock-offset.c`), compiled once
/// per test process with the Swift toolchain's clang into a temporary folder.
actor WallClockOffset {
    static let shared = WallClockOffset()
    private var built: String?

    func library() async throws -> String {
        if let built { return built }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/wall-clock-offset/wall-clock-offset.c").path
        let folder = try TemporaryFolder("wall-clock-offset")
        let library = folder.path + "/wall-clock-offset.so"
        let clang = try Self.clang()
        let output = try await runCommand(URL(fileURLWithPath: clang), ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"])
        guard output.exit.status == 0, !output.exit.wasSignalled else {
            throw CommandLineDeviceError("cannot compile the wall-clock shim with \(clang): \(output.standardError)")
        }
        built = library
        return library
    }

    /// The clang beside the `swift` that runs the tests, else one on the PATH.
    static func clang() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in ["/opt/swift/usr/bin"] + path.split(separator: ":").map(String.init) {
            let candidate = folder + "/clang"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw CommandLineDeviceError("no clang found (it comes with the Swift toolchain)")
    }
}
