import Foundation

/// Sync push and pull: prepares a log of the first `count` events once, then per run copies
/// it, starts the reference server (a child process, fresh data folder) on loopback, pushes
/// every event from another child, pulls them all into a fresh device from a third (its
/// read models brought up to date), and stops the server with SIGTERM.
struct SyncPushPhase {
    let root: String
    let dataset: String
    let count: Int
    let runs: Int
    let seed: UInt64

    func run(into results: inout BenchResults) throws {
        let prepared = root + "/sync-source"
        let base = ChildTask(workload: .syncPush, system: .chronicle, dataset: dataset, directory: prepared,
                             source: nil, count: count, seed: seed)
        progress("sync-push: preparing a log of \(count) events (not measured)")
        _ = try ChildProcess.run(.prepare, base)
        defer { try? FileManager.default.removeItem(atPath: prepared) }
        for run in 0..<runs {
            let client = "\(root)/sync-client-\(run)"
            let serverData = "\(root)/sync-server-\(run)"
            try FileManager.default.copyItem(atPath: prepared, toPath: client)
            defer {
                try? FileManager.default.removeItem(atPath: client)
                try? FileManager.default.removeItem(atPath: serverData)
            }
            var serve = base
            serve.directory = serverData
            let (server, port) = try ChildProcess.startServer(serve)
            defer {
                server.terminate()
                server.waitUntilExit()
            }
            var push = base
            push.directory = client
            push.source = client
            push.url = "http://127.0.0.1:\(port)"
            progress("sync-push run \(run + 1) chronicle → reference server on 127.0.0.1:\(port)")
            let measurement = try ChildProcess.run(.measure, push)
            guard measurement.operations == count else {
                throw BenchError.child("sync-push acknowledged \(measurement.operations) of \(count) events")
            }
            results.record(.syncPush, .chronicle, measurement)
            progress("  chronicle: \(Report.number(measurement.rate)) events/s (\(measurement.operations) in \(String(format: "%.2f", measurement.seconds)) s), peak anon \(measurement.peakAnonBytes >> 20) MiB")

            var pull = base
            pull.workload = .syncPull
            pull.directory = "\(root)/sync-device-\(run)"
            pull.url = push.url
            defer { try? FileManager.default.removeItem(atPath: pull.directory) }
            progress("sync-pull run \(run + 1) reference server → a fresh chronicle device")
            let pulled = try ChildProcess.run(.measure, pull)
            guard pulled.operations == count else {
                throw BenchError.child("sync-pull stored \(pulled.operations) of \(count) events")
            }
            results.record(.syncPull, .chronicle, pulled)
            progress("  chronicle: \(Report.number(pulled.rate)) events/s (\(pulled.operations) in \(String(format: "%.2f", pulled.seconds)) s), peak anon \(pulled.peakAnonBytes >> 20) MiB")
        }
    }
}
