import Chronicle
import Foundation

/// `chronicle-bench live`: what a user feels of live sync. Device A appends; the time until
/// device B's observed query delivers the write is measured, p50 and p99, with 1, 100 and
/// 1,000 devices waiting on the server (B among them), on the LMDB server and on three
/// PostgreSQL instances (A pushes to the first, B waits on the second), beside today's
/// default (a pull waiting on the server) and the polling before it (a pull every 2 s). With
/// the pulls waiting, the server's resident memory per waiting device is measured too.
///
///     tools/bench live [--waiting 1,100,1000] [--writes 100] [--poll-writes 20] [--storage lmdb,postgres]
enum LiveLatency {
    static let subcommand = "live"

    struct Options {
        var waiting = [1, 100, 1000]
        var writes = 100
        var pollWrites = 20
        var storages = ["lmdb", "postgres"]

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let flag = rest.popFirst() {
                guard let value = rest.popFirst() else { throw BenchError.usage("\(flag) needs a value") }
                switch flag {
                case "--waiting":
                    waiting = try value.split(separator: ",").map {
                        guard let count = Int($0), count >= 1 else { throw BenchError.usage("--waiting takes counts of 1 or more") }
                        return count
                    }
                case "--writes": writes = try Self.count(value, flag)
                case "--poll-writes": pollWrites = try Self.count(value, flag)
                case "--storage": storages = value.split(separator: ",").map(String.init)
                default: throw BenchError.usage("unknown option \(flag) for live")
                }
            }
        }

        static func count(_ text: String, _ flag: String) throws -> Int {
            guard let count = Int(text), count >= 1 else { throw BenchError.usage("\(flag) takes a count of 1 or more") }
            return count
        }
    }

    /// One measured configuration.
    struct Row {
        var storage: String
        var mode: LiveDevices.Mode
        var waiting: Int
        var latencies: [Duration]
        /// Server memory per waiting device, in bytes (pulls waiting only).
        var bytesPerWaiter: Int?

        func percentile(_ fraction: Double) -> Duration {
            let sorted = latencies.sorted()
            return sorted[min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
        }
    }

    static func main(_ arguments: [String]) async -> Int32 {
        do {
            let options = try Options(arguments)
            let root = NSTemporaryDirectory() + "chronicle-live-\(getpid())"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let postgres = options.storages.contains("postgres") ? try ScratchPostgres.start(under: root) : nil
            defer { postgres?.stop() }
            var rows: [Row] = []
            for storage in options.storages {
                let database = storage == "postgres" ? postgres?.url : nil
                if storage == "postgres" && database == nil { continue }
                for waiting in options.waiting {
                    for mode in [LiveDevices.Mode.wait, .poll] {
                        let writes = mode == .wait ? options.writes : options.pollWrites
                        progress("live: \(storage), \(waiting) waiting, \(mode.rawValue), \(writes) writes")
                        rows.append(try await measure(storage: storage, database: database, waiting: waiting, mode: mode,
                                                      writes: writes, root: root))
                    }
                }
            }
            print(table(rows), terminator: "")
            return 0
        } catch {
            progress("error: \(error)")
            return 1
        }
    }

    static func measure(storage: String, database: String?, waiting: Int, mode: LiveDevices.Mode,
                        writes: Int, root: String) async throws -> Row {
        let name = "\(storage)-\(waiting)-\(mode.rawValue)"
        let instances = database == nil ? 1 : 3
        var task = ChildTask(workload: .syncPush, system: instances == 1 ? .chronicle : .chroniclePostgres3, dataset: "",
                             directory: root + "/server-\(name)", count: 0)
        task.tenant = "live-\(getpid())-\(name)"
        task.database = database
        var servers: [(process: Process, port: Int)] = []
        defer {
            for server in servers { server.process.terminate() }
            for server in servers { server.process.waitUntilExit() }
        }
        for _ in 0..<instances { servers.append(try ChildProcess.startServer(task)) }
        let urls = servers.map { URL(string: "http://127.0.0.1:\($0.port)")! }
        let token = ChronicleWorkloads.token
        func residentBytes() -> Int {
            servers.reduce(0) { $0 + LiveDevices.residentBytes(of: $1.process.processIdentifier) }
        }
        func waitingPulls() async throws -> Int {
            var total = 0
            for url in urls { total += try await LiveDevices.waitingPulls(url) }
            return total
        }

        // B first: a store syncing as an app does, waiting on the second (or only) instance.
        var configuration = SyncConfiguration(remote: urls[instances > 1 ? 1 : 0], token: token)
        if mode == .poll { configuration.pullWait = .zero }
        let b = try ChronicleStore(directory: root + "/b-\(name)")
        let bSettings = configuration
        let bSync = Task { try await b.runSync(bSettings) }
        if mode == .wait { try await waitUntil("B's pull waiting") { try await waitingPulls() >= 1 } }
        try await Task.sleep(for: .milliseconds(500))
        let bytesWithB = residentBytes()

        // The other devices, spread over the instances.
        let others = (0..<(waiting - 1)).map { index in
            Task { await LiveDevices.run(mode, base: urls[index % instances], token: token) }
        }
        defer { for device in others { device.cancel() } }
        var bytesPerWaiter: Int?
        if mode == .wait {
            try await waitUntil("\(waiting) pulls waiting") { try await waitingPulls() >= waiting }
            try await Task.sleep(for: .seconds(1))
            if waiting > 1 { bytesPerWaiter = max(0, residentBytes() - bytesWithB) / (waiting - 1) }
        } else {
            try await Task.sleep(for: .seconds(3))   // every poller started
        }

        configuration.remote = urls[0]
        let aSettings = configuration
        let a = try ChronicleStore(directory: root + "/a-\(name)")
        let aSync = Task { try await a.runSync(aSettings) }
        var seen = b.observe(.users).makeAsyncIterator()
        var latencies: [Duration] = []
        for index in -2..<writes {   // two writes to warm up, not counted
            // Writes at random moments: between 20 and 80 ms apart with pulls waiting; anywhere in
            // the 2 s between polls when polling, so the poll's phase does not favour either.
            try await Task.sleep(for: .milliseconds(mode == .wait ? Int.random(in: 20...80) : Int.random(in: 0..<2000)))
            let user = try await a.createUser(name: "User \(index)", age: 30)
            let written = ContinuousClock.now
            while let users = try await seen.next(), !users.contains(where: { $0.id == user.id }) {}
            if index >= 0 { latencies.append(ContinuousClock.now - written) }
        }
        for sync in [aSync, bSync] { sync.cancel() }
        for sync in [aSync, bSync] { _ = try? await sync.value }
        await a.close()
        await b.close()
        return Row(storage: storage, mode: mode, waiting: waiting, latencies: latencies, bytesPerWaiter: bytesPerWaiter)
    }

    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw BenchError.child("\(what): not within 2 minutes") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func table(_ rows: [Row]) -> String {
        func ms(_ duration: Duration) -> String {
            String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
        }
        var text = "| server | devices waiting | how B learns | writes | p50 | p99 | max | server memory per waiting device |\n"
        text += "|---|---|---|---|---|---|---|---|\n"
        for row in rows {
            let server = row.storage == "lmdb" ? "LMDB, 1 instance" : "PostgreSQL, 3 instances"
            let how = row.mode == .wait ? "pull waits on the server" : "pull every 2 s"
            let memory = row.bytesPerWaiter.map { String(format: "%.1f KiB", Double($0) / 1024) } ?? "—"
            text += "| \(server) | \(row.waiting) | \(how) | \(row.latencies.count) | \(ms(row.percentile(0.5))) | "
                + "\(ms(row.percentile(0.99))) | \(ms(row.latencies.max() ?? .zero)) | \(memory) |\n"
        }
        return text
    }
}
