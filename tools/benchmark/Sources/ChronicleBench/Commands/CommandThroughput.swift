import Chronicle
import Foundation

/// `chronicle-bench commands`: the todo app's typed commands through `ChronicleStore`, each
/// decided and appended on its own (durable when it returns), on a fresh store in a folder of
/// the disk: one writer creating todos, then eight writers (tasks of one process) updating
/// them, then one writer completing them. Commands per second, the median of the runs.
///
///     tools/bench commands [--count 2000] [--runs 3] [--dir /var/tmp]
///
/// Run two builds of this binary one after the other to compare them (the other workloads'
/// pairing does not cover commands).
enum CommandThroughput {
    static let subcommand = "commands"

    static func main(_ arguments: [String]) async -> Int32 {
        var count = 2_000, runs = 3, directory = "/var/tmp"
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { progress("error: \(flag) needs a value"); return 2 }
            switch flag {
            case "--count": count = Int(value) ?? 0
            case "--runs": runs = Int(value) ?? 0
            case "--dir": directory = value
            default: progress("error: unknown option \(flag) for commands"); return 2
            }
        }
        guard count >= 8, runs >= 1 else { progress("error: --count takes 8 or more, --runs 1 or more"); return 2 }
        do {
            var rates: [String: [Double]] = [:]
            for run in 1...runs {
                for (name, rate) in try await measure(count: count, in: directory) {
                    rates[name, default: []].append(rate)
                    progress("run \(run): \(name) \(Int(rate)) commands/s")
                }
            }
            for name in ["create, 1 writer", "update, 8 writers", "complete, 1 writer"] {
                let sorted = (rates[name] ?? []).sorted()
                print("\(name): \(Int(sorted[sorted.count / 2])) commands/s (median of \(sorted.count))")
            }
            return 0
        } catch {
            progress("error: \(error)")
            return 1
        }
    }

    /// One run on a fresh store; the rate of each phase.
    static func measure(count: Int, in directory: String) async throws -> [(String, Double)] {
        let path = directory + "/chronicle-commands-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try ChronicleStore(directory: path)
        let clock = ContinuousClock()
        var start = clock.now
        var ids: [UUID] = []
        for n in 0..<count { ids.append(try await store.createTodo(title: "todo \(n)", deadline: "2026-12-01").id) }
        let created = clock.now - start
        let todos = ids
        start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for (n, id) in todos.enumerated() where n % 8 == lane { _ = try await store.updateTodo(id, title: "updated \(n)") }
                }
            }
            try await group.waitForAll()
        }
        let updated = clock.now - start
        start = clock.now
        for id in ids { _ = try await store.completeTodo(id) }
        let completed = clock.now - start
        await store.close()
        func rate(_ duration: Duration) -> Double { Double(count) / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) }
        return [("create, 1 writer", rate(created)), ("update, 8 writers", rate(updated)), ("complete, 1 writer", rate(completed))]
    }
}
