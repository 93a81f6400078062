import Chronicle
import ChronicleSync
import Domain
import EventLog
import Foundation
import Testing

/// Devices that edit offline and sync through a faulty network end up showing the same
/// thing: seeded random runs (commands on random devices, pushes and pulls through a proxy
/// that drops, refuses and duplicates requests), then a quiet phase without faults, then
/// every device, and a fresh one that only pulled, must render the same users, todos, tags
/// and stats, byte for byte, with intact logs holding exactly the server's events; and what
/// they show keeps the merge rules' invariants (no live todo of a deleted user, no two live
/// tags named alike, stats that count the live todos).
///
/// - `CHRONICLE_CONVERGENCE_SEEDS=N`: how many seeds (1…N) to run (default 100).
/// - `CHRONICLE_CONVERGENCE_SEED=N`: replay seed N alone (its step trace is printed on failure).
@Suite("Convergence of devices syncing through a faulty network", .timeLimit(.minutes(10)))
struct ConvergencePropertyTests {
    static let replaySeed = ProcessInfo.processInfo.environment["CHRONICLE_CONVERGENCE_SEED"].flatMap { UInt64($0) }
    static let seeds: [UInt64] = {
        if let replaySeed { return [replaySeed] }
        let count = ProcessInfo.processInfo.environment["CHRONICLE_CONVERGENCE_SEEDS"].flatMap { Int($0) } ?? 100
        return count > 0 ? Array(1...UInt64(count)) : []
    }()

    static func replayHint(_ seed: UInt64) -> String {
        "replay: CHRONICLE_CONVERGENCE_SEED=\(seed) swift test --filter ConvergencePropertyTests"
    }

    // MARK: - Randomized

    @Test("random offline edits on 2–5 devices, random pushes and pulls through faults, then sync until quiet: all converge, invariants hold")
    func randomRunsConverge() async throws {
        var failed: [UInt64] = []
        let started = ContinuousClock.now
        for seed in Self.seeds {
            let run = await ConvergenceRun.play(seed: seed)
            guard !run.problems.isEmpty else { continue }
            failed.append(seed)
            let detailed = Self.replaySeed != nil || failed.count == 1
            var message = "seed \(seed) failed (\(run.summary)); \(Self.replayHint(seed))\n"
            message += run.problems.prefix(8).map { "- " + $0 }.joined(separator: "\n")
            if run.problems.count > 8 { message += "\n… and \(run.problems.count - 8) more problems" }
            if detailed {
                message += "\nsteps of seed \(seed):\n" + run.trace.joined(separator: "\n")
                message += "\nfaults played: " + (run.faults.isEmpty ? "none" : run.faults.joined(separator: ", "))
            }
            Issue.record(Comment(rawValue: message))
        }
        let elapsed = ContinuousClock.now - started
        if !failed.isEmpty {
            let message = "\(failed.count) of \(Self.seeds.count) seeds failed (first: \(failed[0]); "
                + "\(Self.replayHint(failed[0]))); failing seeds: \(failed.map(String.init).joined(separator: " "))"
            Issue.record(Comment(rawValue: message))
        }
        print("convergence: \(Self.seeds.count) seeds in \(elapsed), \(failed.count) failed")
    }

    // MARK: - Scripted

    @Test("with faults off the proxy answers what the server answers: status, body, for health, pulls and refusals")
    func proxyPassesThrough() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A")
            try await a.store.createUser(name: "Ada", age: 36)
            try await cluster.expectComplete(a.engine.push(), "A's push")
            let proxy = HTTP(base: cluster.proxy.url), server = cluster.server.http
            for (path, token) in [("healthz", nil), ("v1/events?after=0&limit=5", SyncCluster.token),
                                  ("v1/events?after=0&limit=5", "wrong-token"), ("v1/events?after=x", SyncCluster.token)] {
                let viaProxy = try await proxy.request("GET", path, token: token)
                let direct = try await server.request("GET", path, token: token)
                #expect(viaProxy.status == direct.status, "GET \(path)")
                #expect(viaProxy.text == direct.text, "GET \(path)")
                #expect(viaProxy.headers["content-type"] == direct.headers["content-type"], "GET \(path)")
            }
            #expect(cluster.proxy.faults.played.isEmpty)
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("two devices retitle the same todo offline; A pushes, then B: after pulling, both show B's title")
    func concurrentTitlesLastPushWins() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B")
            let todo = try await a.store.createTodo(title: "Original", deadline: "2026-12-01")
            try await cluster.expectComplete(a.engine.push(), "A's first push")
            try await cluster.expectComplete(b.engine.pull(), "B's first pull")
            try await b.store.refresh()
            #expect(try await b.store.todo(todo.id)?.title == "Original")

            try await a.store.updateTodo(todo.id, title: "Title from A")
            try await b.store.updateTodo(todo.id, title: "Title from B")
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.push(), "B's push")
            try await cluster.expectComplete(a.engine.pull(), "A's pull")
            try await cluster.expectComplete(b.engine.pull(), "B's pull")

            for device in [a, b] {
                try await device.store.refresh()
                let titles = try await device.store.todos().map(\.title)
                #expect(titles == ["Title from B"], "device \(device.name) shows \(titles)")
            }
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("two devices create tags \"Work\" and \"work\" offline; A pushes, then B: both list both, B's as \"work (2)\"")
    func collidingTagNamesBothKept() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B")
            let work = try await a.store.createTag(name: "Work", color: "#ff8800")
            let lower = try await b.store.createTag(name: "work", color: "#000000")
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.push(), "B's push")
            try await cluster.expectComplete(a.engine.pull(), "A's pull")
            try await cluster.expectComplete(b.engine.pull(), "B's pull")

            let expected = [Domain.Tag(id: work.id, name: "Work", color: "#ff8800"), Domain.Tag(id: lower.id, name: "work (2)", color: "#000000")]
            for device in [a, b] {
                try await device.store.refresh()
                let tags = try await device.store.tags()
                #expect(tags == expected, "device \(device.name) lists \(tags.map(\.name)): \(ModelRendering.tags(tags))")
            }
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("A deletes a user while B, offline, creates a todo for that user: after sync no device shows a live todo naming the user")
    func deletedUserHasNoLiveTodos() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B")
            let ada = try await a.store.createUser(name: "Ada", age: 36)
            try await cluster.expectComplete(a.engine.push(), "A's first push")
            try await cluster.expectComplete(b.engine.pull(), "B's first pull")
            try await b.store.refresh()
            #expect(try await b.store.user(ada.id) != nil, "B must know Ada before going offline")

            try await a.store.deleteUser(ada.id)
            let todo = try await b.store.createTodo(title: "For Ada", deadline: "2026-12-01", userId: ada.id)
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.push(), "B's push")
            let problems = try await cluster.syncUntilQuiet()
            #expect(problems.isEmpty, "\(problems)")

            for device in [a, b] {
                try await device.store.refresh()
                let todos = try await device.store.todos()
                let naming = todos.filter { $0.userId == ada.id }
                #expect(naming.isEmpty, "device \(device.name) shows live todos of deleted user Ada: \(ModelRendering.todos(naming))")
                #expect(try await device.store.todo(todo.id) == nil, "device \(device.name) still shows B's todo for Ada")
                #expect(try await device.store.users().isEmpty, "device \(device.name) still shows users")
                #expect(try await device.store.stats().isEmpty, "device \(device.name) counts todos in its stats")
            }
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }
}

// MARK: - One randomized run

/// One seed's run: its problems (empty: converged) and what happened, step by step.
struct ConvergenceRun {
    var problems: [String] = []
    var trace: [String] = []
    var faults: [String] = []
    var summary = ""

    /// How many devices and steps a seed gets.
    static let devices = 2...5
    static let steps = 10...40
    /// How many commands the first device runs before the others pull its work.
    static let baseline = 3...8
    /// The chance that the proxy faults a request before the quiet phase.
    static let faultProbability = 0.2

    static func play(seed: UInt64) async -> ConvergenceRun {
        var run = ConvergenceRun()
        var random = ConvergenceRandom(seed: seed)
        let deviceCount = Int.random(in: devices, using: &random)
        let stepCount = Int.random(in: steps, using: &random)
        run.summary = "\(deviceCount) devices, \(stepCount) steps"
        let cluster: SyncCluster
        do {
            // The proxy's faults come from their own generator, derived from the seed.
            cluster = try await SyncCluster.start(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1, probability: faultProbability,
                                                  maxAttempts: 3)
        } catch {
            run.problems.append("cannot start the server and proxy: \(error)")
            return run
        }
        do {
            for index in 0..<deviceCount { _ = try await cluster.addDevice(["A", "B", "C", "D", "E", "F", "G"][index]) }
            // A shared start, so that devices soon edit the same entities: A runs a few commands,
            // pushes, and every other device pulls (through the faults like everything else).
            let first = cluster.devices[0]
            var created: [UUID: Int] = [:]
            for step in 1...Int.random(in: baseline, using: &random) {
                run.trace.append("start \(step) A " + (try await Self.command(on: first, &random, created: &created)))
            }
            run.trace.append("start A " + (try await Self.sync(first, push: true)))
            for device in cluster.devices.dropFirst() {
                run.trace.append("start \(device.name) " + (try await Self.sync(device, push: false)))
            }
            for step in 1...stepCount {
                let device = cluster.devices[Int.random(in: 0..<deviceCount, using: &random)]
                let line: String
                if Double.random(in: 0..<1, using: &random) < 0.3 {
                    line = try await Self.sync(device, push: Bool.random(using: &random))
                } else {
                    line = try await Self.command(on: device, &random, created: &created)
                }
                run.trace.append("#\(step) \(device.name) \(line)")
            }
            run.faults = cluster.proxy.faults.played
            run.trace.append("quiet phase (faults off)")
            run.problems += try await cluster.syncUntilQuiet(trace: &run.trace)
            if run.problems.isEmpty {
                run.problems += try await cluster.convergenceProblems()
                run.problems += try await cluster.invariantProblems()
            }
        } catch {
            run.problems.append("the run threw: \(error)")
        }
        run.faults = cluster.proxy.faults.played
        await cluster.shutdown()
        return run
    }

    /// A push or a pull; whatever the network did is fine here.
    static func sync(_ device: SyncCluster.Device, push: Bool) async throws -> String {
        if push {
            let summary = try await device.engine.push()
            return "push -> \(Self.describe(summary.outcome)), acknowledged \(summary.eventsAcknowledged) "
                + "(\(summary.accepted) accepted), \(summary.requests) requests, \(summary.pending) pending"
        } else {
            let summary = try await device.engine.pull()
            return "pull -> \(Self.describe(summary.outcome)), stored \(summary.stored) of \(summary.received), "
                + "\(summary.requests) requests"
        }
    }

    static func describe(_ outcome: PushSummary.Outcome) -> String {
        switch outcome {
        case .complete: "complete"
        case let .gaveUp(error, attempts): "gave up after \(attempts) (\(error))"
        case let .stopped(error): "stopped (\(error))"
        }
    }

    /// A random command on `device`, aimed at what the device shows now; a refusal by the
    /// device's rules is part of the game.
    /// Candidates are ordered by when this run created them (`created`: id → ordinal), not as
    /// the store lists them (by ids, which are random), so a seed replays the same commands.
    static func command(on device: SyncCluster.Device, _ random: inout ConvergenceRandom,
                        created: inout [UUID: Int]) async throws -> String {
        let store = device.store
        try await store.refresh()
        let order = created
        func ordered<T>(_ items: [T], _ id: (T) -> UUID) -> [T] {
            items.sorted { (order[id($0)] ?? .max, id($0).uuidString) < (order[id($1)] ?? .max, id($1).uuidString) }
        }
        var todos = ordered(try await store.todos(), \.id)
        for index in todos.indices { todos[index].tags = ordered(todos[index].tags, { $0 }) }
        let command = Command.random(&random, users: ordered(try await store.users(), \.id), todos: todos,
                                     tags: ordered(try await store.tags(), \.id))
        do {
            if let id = try await command.run(on: store) { created[id] = created.count }
            return "\(command) -> ok"
        } catch let error as ChronicleError {
            return "\(command) -> refused: \(error)"
        } catch let error as DomainError {
            return "\(command) -> refused: \(error)"
        }
    }
}

/// One command of the app's, with its arguments drawn from a device's current state.
enum Command: CustomStringConvertible {
    case createUser(name: String, age: Int)
    case updateUser(UUID, name: String?, age: Int?)
    case deleteUser(UUID)
    case createTodo(title: String, deadline: String, userId: UUID?, memo: String?)
    case updateTodo(UUID, title: String?, deadline: String?, memo: String?)
    case completeTodo(UUID)
    case reopenTodo(UUID)
    case deleteTodo(UUID)
    case createTag(name: String, color: String)
    case updateTag(UUID, name: String?, color: String?)
    case deleteTag(UUID)
    case tagTodo(UUID, tag: UUID)
    case untagTodo(UUID, tag: UUID)

    static let userNames = ["Ada", "Grace", "Linus", "ada"]
    /// Few tag names, in case variants, so devices collide on them.
    static let tagNames = ["Work", "work", "WORK", "Home", "home", "HOME", "Errands"]
    static let colors = ["#ff8800", "#00AA00", "#123abc", "#000000"]
    static let days = ["2026-12-01", "2026-12-02", "2026-12-03"]
    static let titles = ["Write notes", "Buy milk", "Call Bob", "Fix the bike", "Read"]
    static let memos = ["urgent", "later", "ask Ada"]

    private enum Kind: CaseIterable {
        case createUser, updateUser, deleteUser, createTodo, updateTodo, completeTodo, reopenTodo, deleteTodo
        case createTag, updateTag, deleteTag, tagTodo, untagTodo

        var weight: Int {
            switch self {
            case .createUser: 8
            case .updateUser: 6
            case .deleteUser: 4
            case .createTodo: 12
            case .updateTodo: 10
            case .completeTodo: 5
            case .reopenTodo: 4
            case .deleteTodo: 4
            case .createTag: 8
            case .updateTag: 5
            case .deleteTag: 3
            case .tagTodo: 8
            case .untagTodo: 4
            }
        }
    }

    static func random(_ random: inout ConvergenceRandom, users: [User], todos: [Todo], tags: [Domain.Tag]) -> Command {
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)] }
        func maybe<T>(_ items: [T]) -> T? { Bool.random(using: &random) ? pick(items) : nil }
        let total = Kind.allCases.map(\.weight).reduce(0, +)
        var roll = Int.random(in: 0..<total, using: &random)
        let kind = Kind.allCases.first { kind in
            if roll < kind.weight { return true }
            roll -= kind.weight
            return false
        }!
        let createUser = Command.createUser(name: pick(userNames)!, age: Int.random(in: 18...80, using: &random))
        let createTodo = Command.createTodo(title: pick(titles)!, deadline: pick(days)!, userId: maybe(users)?.id, memo: maybe(memos))
        switch kind {
        case .createUser:
            return createUser
        case .updateUser:
            guard let user = pick(users) else { return createUser }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .updateUser(user.id, name: pick(userNames), age: nil)
            case 1: return .updateUser(user.id, name: nil, age: Int.random(in: 18...80, using: &random))
            default: return .updateUser(user.id, name: pick(userNames), age: Int.random(in: 18...80, using: &random))
            }
        case .deleteUser:
            guard let user = pick(users) else { return createUser }
            return .deleteUser(user.id)
        case .createTodo:
            return createTodo
        case .updateTodo:
            guard let todo = pick(todos) else { return createTodo }
            var title = maybe(titles), deadline = maybe(days), memo = maybe(memos)
            if title == nil, deadline == nil, memo == nil {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: title = pick(titles)
                case 1: deadline = pick(days)
                default: memo = pick(memos)
                }
            }
            return .updateTodo(todo.id, title: title, deadline: deadline, memo: memo)
        case .completeTodo:
            guard let todo = pick(todos.filter { !$0.isCompleted }) ?? pick(todos) else { return createTodo }
            return .completeTodo(todo.id)
        case .reopenTodo:
            guard let todo = pick(todos.filter(\.isCompleted)) ?? pick(todos) else { return createTodo }
            return .reopenTodo(todo.id)
        case .deleteTodo:
            guard let todo = pick(todos) else { return createTodo }
            return .deleteTodo(todo.id)
        case .createTag:
            return .createTag(name: pick(tagNames)!, color: pick(colors)!)
        case .updateTag:
            guard let tag = pick(tags) else { return .createTag(name: pick(tagNames)!, color: pick(colors)!) }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .updateTag(tag.id, name: pick(tagNames), color: nil)
            case 1: return .updateTag(tag.id, name: nil, color: pick(colors))
            default: return .updateTag(tag.id, name: pick(tagNames), color: pick(colors))
            }
        case .deleteTag:
            guard let tag = pick(tags) else { return .createTag(name: pick(tagNames)!, color: pick(colors)!) }
            return .deleteTag(tag.id)
        case .tagTodo:
            guard let todo = pick(todos) else { return createTodo }
            guard let tag = pick(tags) else { return .createTag(name: pick(tagNames)!, color: pick(colors)!) }
            return .tagTodo(todo.id, tag: tag.id)
        case .untagTodo:
            guard let todo = pick(todos.filter { !$0.tags.isEmpty }), let tag = pick(todo.tags) else {
                guard let todo = pick(todos), let tag = pick(tags) else { return createTodo }
                return .tagTodo(todo.id, tag: tag.id)
            }
            return .untagTodo(todo.id, tag: tag)
        }
    }

    /// Runs the command; returns the id of the entity it created, if any.
    func run(on store: ChronicleStore) async throws -> UUID? {
        switch self {
        case let .createUser(name, age): return try await store.createUser(name: name, age: age).id
        case let .updateUser(id, name, age): try await store.updateUser(id, name: name, age: age)
        case let .deleteUser(id): try await store.deleteUser(id)
        case let .createTodo(title, deadline, userId, memo):
            return try await store.createTodo(title: title, deadline: deadline, userId: userId, memo: memo).id
        case let .updateTodo(id, title, deadline, memo): try await store.updateTodo(id, title: title, deadline: deadline, memo: memo)
        case let .completeTodo(id): try await store.completeTodo(id)
        case let .reopenTodo(id): try await store.reopenTodo(id)
        case let .deleteTodo(id): try await store.deleteTodo(id)
        case let .createTag(name, color): return try await store.createTag(name: name, color: color).id
        case let .updateTag(id, name, color): try await store.updateTag(id, name: name, color: color)
        case let .deleteTag(id): try await store.deleteTag(id)
        case let .tagTodo(todo, tag): try await store.tagTodo(todo, tag: tag)
        case let .untagTodo(todo, tag): try await store.untagTodo(todo, tag: tag)
        }
        return nil
    }

    var description: String {
        func short(_ id: UUID) -> String { String(id.uuidString.lowercased().suffix(6)) }
        func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "-" }
        switch self {
        case let .createUser(name, age): return "createUser(\(text(name)), \(age))"
        case let .updateUser(id, name, age): return "updateUser(\(short(id)), name: \(text(name)), age: \(age.map(String.init) ?? "-"))"
        case let .deleteUser(id): return "deleteUser(\(short(id)))"
        case let .createTodo(title, deadline, userId, memo):
            return "createTodo(\(text(title)), \(deadline), user: \(userId.map(short) ?? "-"), memo: \(text(memo)))"
        case let .updateTodo(id, title, deadline, memo):
            return "updateTodo(\(short(id)), title: \(text(title)), deadline: \(deadline ?? "-"), memo: \(text(memo)))"
        case let .completeTodo(id): return "completeTodo(\(short(id)))"
        case let .reopenTodo(id): return "reopenTodo(\(short(id)))"
        case let .deleteTodo(id): return "deleteTodo(\(short(id)))"
        case let .createTag(name, color): return "createTag(\(text(name)), \(color))"
        case let .updateTag(id, name, color): return "updateTag(\(short(id)), name: \(text(name)), color: \(color ?? "-"))"
        case let .deleteTag(id): return "deleteTag(\(short(id)))"
        case let .tagTodo(todo, tag): return "tagTodo(\(short(todo)), tag: \(short(tag)))"
        case let .untagTodo(todo, tag): return "untagTodo(\(short(todo)), tag: \(short(tag)))"
        }
    }
}

// MARK: - Devices, server and proxy

/// A reference server, a faulty proxy in front of it, and devices syncing through the proxy.
final class SyncCluster {
    struct Device {
        let name: String
        let folder: TemporaryDirectory
        let store: ChronicleStore
        let engine: SyncEngine
    }

    static let token = "token-a"

    let server: TestServer
    let proxy: FaultyProxy
    let maxAttempts: Int
    private(set) var devices: [Device] = []
    /// Devices opened for a check, closed at shutdown with the others.
    private var extras: [Device] = []

    private init(server: TestServer, proxy: FaultyProxy, maxAttempts: Int) {
        self.server = server
        self.proxy = proxy
        self.maxAttempts = maxAttempts
    }

    /// A server and a proxy faulting each request with `probability` (seeded by `seed`).
    static func start(seed: UInt64, probability: Double, maxAttempts: Int = 10) async throws -> SyncCluster {
        let server = try await TestServer.start(tokens: [token: nil])
        do {
            let proxy = try await FaultyProxy.start(upstream: server.url, seed: seed, probability: probability)
            return SyncCluster(server: server, proxy: proxy, maxAttempts: maxAttempts)
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// A new device syncing through the proxy (small batches and pages, so a sync takes
    /// several requests and faults land in the middle of one).
    @discardableResult
    func addDevice(_ name: String) async throws -> Device {
        let device = try openDevice(name)
        devices.append(device)
        return device
    }

    private func openDevice(_ name: String) throws -> Device {
        let folder = try TemporaryDirectory("device-\(name)")
        do {
            let store = try ChronicleStore(directory: folder.path, backgroundProjections: false,
                                           logOptions: .init(noSync: true))
            var configuration = SyncConfiguration.testing(proxy.url, token: Self.token, batchSize: 4,
                                                          maxAttempts: maxAttempts)
            configuration.pullLimit = 8
            do {
                return Device(name: name, folder: folder, store: store, engine: try store.syncEngine(configuration))
            } catch {
                Task { await store.close() }
                throw error
            }
        } catch {
            folder.remove()
            throw error
        }
    }

    /// Fails the test when a push or pull did not complete (the proxy is expected to pass everything).
    func expectComplete(_ summary: PushSummary, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(summary.isComplete, "\(what): \(ConvergenceRun.describe(summary.outcome))", sourceLocation: sourceLocation)
    }

    func expectComplete(_ summary: PullSummary, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(summary.isComplete, "\(what): \(ConvergenceRun.describe(summary.outcome))", sourceLocation: sourceLocation)
    }

    func syncUntilQuiet(maxRounds: Int = 8) async throws -> [String] {
        var trace: [String] = []
        return try await syncUntilQuiet(maxRounds: maxRounds, trace: &trace)
    }

    /// Faults off, then rounds of every device pushing and pulling until a round changes
    /// nothing: every push and pull complete, nothing left pending, no event accepted by the
    /// server, none stored by a device. Returns the problems: no quiet round within
    /// `maxRounds`, with what kept the last round from being quiet.
    func syncUntilQuiet(maxRounds: Int = 8, trace: inout [String]) async throws -> [String] {
        proxy.faults.enabled = false
        var unquiet: [String] = []
        for round in 1...maxRounds {
            unquiet = []
            for device in devices {
                let push = try await device.engine.push()
                if !push.isComplete {
                    unquiet.append("device \(device.name)'s push did not complete: \(ConvergenceRun.describe(push.outcome))")
                }
                if push.pending != 0 { unquiet.append("device \(device.name) has \(push.pending) events pending after a push") }
                if push.accepted > 0 { unquiet.append("the server accepted \(push.accepted) events from device \(device.name)") }
                let pull = try await device.engine.pull()
                if !pull.isComplete {
                    unquiet.append("device \(device.name)'s pull did not complete: \(ConvergenceRun.describe(pull.outcome))")
                }
                if pull.stored > 0 { unquiet.append("device \(device.name) stored \(pull.stored) pulled events") }
                trace.append("round \(round) \(device.name): push \(ConvergenceRun.describe(push.outcome)), accepted \(push.accepted) "
                             + "of \(push.eventsAcknowledged); pull \(ConvergenceRun.describe(pull.outcome)), stored \(pull.stored) of \(pull.received)")
            }
            if unquiet.isEmpty { return [] }
        }
        return ["not quiet after \(maxRounds) rounds of every device pushing and pulling with faults off; in the last round: "
                + unquiet.joined(separator: "; ")]
    }

    /// What differs between the devices (and a fresh device that only pulled), or is wrong
    /// with their logs.
    func convergenceProblems() async throws -> [String] {
        var problems: [String] = []
        let fresh = try openDevice("fresh")
        extras.append(fresh)
        let pull = try await fresh.engine.pull()
        if !pull.isComplete { problems.append("the fresh device's pull did not complete: \(ConvergenceRun.describe(pull.outcome))") }

        let all = devices + [fresh]
        var renderings: [(name: String, rendering: ModelRendering)] = []
        for device in all {
            try await device.store.refresh()
            renderings.append((device.name, try await ModelRendering(device.store)))
        }
        let reference = renderings[0]
        for other in renderings.dropFirst() {
            problems += reference.rendering.differences(from: other.rendering, names: (reference.name, other.name))
        }

        let serverIDs = try await server.http.pullAll(token: Self.token).map(\.id)
        let serverSet = Set(serverIDs)
        if serverSet.count != serverIDs.count {
            problems.append("the server holds \(serverIDs.count - serverSet.count) events twice")
        }
        for device in all {
            let report = try device.store.log.verify()
            if !report.isIntact {
                problems.append("device \(device.name)'s log fails verify: \(report.problem.map(String.init(describing:)) ?? "") \(report.otherProblems)")
            }
            let ids = try Self.eventIDs(device.store.log)
            let set = Set(ids)
            if set.count != ids.count {
                let twice = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys
                problems.append("device \(device.name)'s log holds \(ids.count - set.count) events more than once: \(twice.map(\.uuidString).sorted().prefix(5))")
            }
            let missing = serverSet.subtracting(set), extra = set.subtracting(serverSet)
            if !missing.isEmpty || !extra.isEmpty {
                problems.append("device \(device.name)'s log lacks \(missing.count) of the server's \(serverSet.count) events and holds \(extra.count) the server does not")
            }
        }
        return problems
    }

    /// The merge rules' promises, on what each device (and the fresh one) shows once quiet:
    /// no live todo names a user that is not live, a todo shows only live tags, no two live
    /// tags share a name regardless of case (a collision is shown renamed, "work (2)"), and
    /// the stats count the live todos per day.
    func invariantProblems() async throws -> [String] {
        var problems: [String] = []
        for device in devices + extras {
            let store = device.store
            try await store.refresh()
            let users = Set(try await store.users().map(\.id))
            let tags = try await store.tags()
            let tagIDs = Set(tags.map(\.id))
            let todos = try await store.todos()
            for todo in todos {
                if let owner = todo.userId, !users.contains(owner) {
                    problems.append("device \(device.name) shows live todo \(ModelRendering.todo(todo)) of user \(owner.uuidString.lowercased()), who is not live")
                }
                if !Set(todo.tags).isSubset(of: tagIDs) {
                    problems.append("device \(device.name) shows todo \(ModelRendering.todo(todo)) with a tag that is not live")
                }
            }
            let names = Dictionary(grouping: tags, by: { Domain.Tag.foldedName($0.name) }).filter { $0.value.count > 1 }
            for (_, same) in names.sorted(by: { $0.key < $1.key }) {
                problems.append("device \(device.name) shows live tags with the same name: \(ModelRendering.tags(same))")
            }
            var counted: [CalendarDay: (total: Int, completed: Int)] = [:]
            for todo in todos {
                counted[todo.deadline, default: (0, 0)].total += 1
                if todo.isCompleted { counted[todo.deadline, default: (0, 0)].completed += 1 }
            }
            let expected = counted.map { DailyStat(date: $0.key, total: $0.value.total, completed: $0.value.completed) }
                .sorted { $0.date < $1.date }
            let stats = try await store.stats()
            if stats != expected {
                problems.append("device \(device.name)'s stats \(stats.map(ModelRendering.stat)) are not its live todos counted per day \(expected.map(ModelRendering.stat))")
            }
        }
        return problems
    }

    static func eventIDs(_ log: EventLog) throws -> [UUID] {
        var ids: [UUID] = []
        var after: UInt64 = 0
        while true {
            let events = try log.read(after: after, limit: 1000)
            guard let last = events.last else { return ids }
            ids += events.map(\.id)
            after = last.position
        }
    }

    /// Closes every store, stops the proxy and the server, removes every folder.
    func shutdown() async {
        for device in devices + extras {
            await device.store.close()
            device.folder.remove()
        }
        devices = []
        extras = []
        try? await proxy.stop()
        try? await server.stop()
    }
}

// MARK: - Rendering

/// What a device shows, as the CLI's JSON (same keys, same order, same bytes; the CLI's
/// `ModelJSON` is in the executable target, out of the tests' reach): users, all live todos,
/// tags and stats, one JSON object per item.
struct ModelRendering: Equatable {
    var users: [String]
    var todos: [String]
    var tags: [String]
    var stats: [String]

    init(_ store: ChronicleStore) async throws {
        users = try await store.users().map(Self.user)
        todos = try await store.todos().map(Self.todo)
        tags = try await store.tags().map(Self.tag)
        stats = try await store.stats().map(Self.stat)
    }

    /// Per list whose JSON differs: what only one side shows, or that the order differs.
    func differences(from other: ModelRendering, names: (String, String)) -> [String] {
        var problems: [String] = []
        for (list, mine, theirs) in [("users", users, other.users), ("todos", todos, other.todos),
                                     ("tags", tags, other.tags), ("stats", stats, other.stats)] {
            let (a, b) = ("[" + mine.joined(separator: ",") + "]", "[" + theirs.joined(separator: ",") + "]")
            guard a != b else { continue }
            let onlyMine = mine.filter { !theirs.contains($0) }, onlyTheirs = theirs.filter { !mine.contains($0) }
            if onlyMine.isEmpty, onlyTheirs.isEmpty {
                problems.append("\(list) of \(names.0) and \(names.1) differ in order: \(a) vs \(b)")
            } else {
                problems.append("\(list) of \(names.0) and \(names.1) differ: only \(names.0) shows \(onlyMine.joined(separator: ","))"
                                + "; only \(names.1) shows \(onlyTheirs.joined(separator: ","))")
            }
        }
        return problems
    }

    static func user(_ user: User) -> String {
        "{\"id\":\"\(user.id.uuidString.lowercased())\",\"name\":\(EventJSON.quote(user.name)),\"age\":\(user.age)}"
    }

    static func todo(_ todo: Todo) -> String {
        "{\"id\":\"\(todo.id.uuidString.lowercased())\",\"title\":\(EventJSON.quote(todo.title)),\"deadline\":\"\(todo.deadline)\","
            + "\"userId\":\(todo.userId.map { "\"\($0.uuidString.lowercased())\"" } ?? "null"),"
            + "\"memo\":\(todo.memo.map(EventJSON.quote) ?? "null"),\"isCompleted\":\(todo.isCompleted),"
            + "\"tags\":[" + todo.tags.map { "\"\($0.uuidString.lowercased())\"" }.joined(separator: ",") + "]}"
    }

    static func tag(_ tag: Domain.Tag) -> String {
        "{\"id\":\"\(tag.id.uuidString.lowercased())\",\"name\":\(EventJSON.quote(tag.name)),\"color\":\(EventJSON.quote(tag.color))}"
    }

    static func stat(_ stat: DailyStat) -> String {
        "{\"date\":\"\(stat.date)\",\"total\":\(stat.total),\"completed\":\(stat.completed)}"
    }

    static func todos(_ todos: [Todo]) -> String { "[" + todos.map(todo).joined(separator: ",") + "]" }
    static func tags(_ tags: [Domain.Tag]) -> String { "[" + tags.map(tag).joined(separator: ",") + "]" }
}
