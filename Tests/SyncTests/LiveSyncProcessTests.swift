import Chronicle
import ChronicleTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Live sync against real `chronicle serve` processes: an instance SIGKILLed while devices
/// wait on it, and a server SIGTERMed while a thousand pulls wait. Waits assert events; the
/// only times asserted are "before the wait ended" and "within a few seconds", with margins.
@Suite("Live sync through server processes", .timeLimit(.minutes(10)))
struct LiveSyncProcessTests {
    static let token = "live-token"

    /// Returns once `servers`' `chronicle_pulls_waiting` add up to at least `count`.
    static func waiting(_ count: Int, on servers: [ServerProcess]) async throws {
        try await withTimeout(.seconds(120), "\(count) pulls waiting") {
            while true {
                var total = 0.0
                for server in servers { total += (try? await server.metric("chronicle_pulls_waiting")) ?? 0 }
                if total >= Double(count) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// The next value of `observed` that satisfies `wanted` (a hang guard of `limit`).
    static func next<Value: Sendable & Equatable>(_ observed: StoreObservation<Value>, _ what: String,
                                                  within limit: Duration = .seconds(120),
                                                  where wanted: @escaping @Sendable (Value) -> Bool) async throws {
        try await withTimeout(limit, what) {
            for try await value in observed where wanted(value) { return }
            throw ServerProcessError("the observation ended before \(what)")
        }
    }

    @Test("three instances on one PostgreSQL database: laptops wait through a proxy, one instance is SIGKILLed, the phone's next write still reaches every laptop through the others")
    func instanceKilledWhileDevicesWait() async throws {
        let cluster = try await SyncCluster.startProcesses(seed: 1, probability: 0, postgresInstances: 3)
        let folder = try TemporaryFolder("live-kill")
        defer { folder.remove() }
        var configuration = SyncConfiguration.testing(cluster.proxy.url, token: SyncCluster.token, maxAttempts: nil)
        // Only pulls waiting on the servers can bring the writes before these hour-long intervals.
        configuration.pullInterval = .seconds(3600)
        configuration.pollInterval = .seconds(3600)
        configuration.pullWait = .seconds(30)
        let settings = configuration
        let phone = try ChronicleStore(directory: folder.path + "/phone")
        var laptops: [ChronicleStore] = []
        for index in 0..<3 { laptops.append(try ChronicleStore(directory: folder.path + "/laptop\(index)")) }
        var syncing = laptops.map { laptop in Task { try await laptop.runSync(settings) } }
        do {
            try await Self.waiting(3, on: cluster.processes)
            syncing.append(Task { try await phone.runSync(settings) })
            let ada = try await phone.createUser(name: "Ada", age: 36)
            for laptop in laptops {
                try await Self.next(laptop.observe(.users), "Ada on a laptop") { $0.map(\.id) == [ada.id] }
            }
            // The laptops wait again, one or more of them on the instance about to die.
            try await Self.waiting(3, on: cluster.processes)
            await cluster.processes[0].kill()
            _ = try await phone.updateUser(ada.id, name: "Ada L.")
            for laptop in laptops {
                try await Self.next(laptop.observe(.users), "the rename on a laptop, through the instances alive") {
                    $0.map(\.name) == ["Ada L."]
                }
            }
        } catch {
            for task in syncing { task.cancel() }
            throw error
        }
        for task in syncing { task.cancel() }
        for task in syncing { try await task.value }
        for store in laptops + [phone] { await store.close() }
        await cluster.shutdown()
    }

    @Test("a serve process SIGTERMed while 1,000 pulls wait 60 s exits within a few seconds; each pull is answered (empty) or its connection closed")
    func sigtermWithAThousandWaiters() async throws {
        let data = try TemporaryFolder("live-sigterm")
        defer { data.remove() }
        let server = try await ServerProcess.start(["--data", data.path, "--token", Self.token])
        let count = 1000
        // Plain sockets, read once the server is gone: a thousand pulls cost this process (and
        // the tests running beside it) next to nothing.
        var pulls: [RawPull] = []
        defer { for pull in pulls { pull.close() } }
        for _ in 0..<count {
            pulls.append(try RawPull.send(port: server.port, path: "/v1/events?after=0&wait=60", token: Self.token))
        }
        try await Self.waiting(count, on: [server])
        let took = await server.terminate(within: .seconds(30))
        #expect(took != nil, "the server still ran 30 s after SIGTERM")
        #expect(took.map { $0 < .seconds(10) } ?? false, "exiting took \(String(describing: took)), the waits being 60 s")
        var answered = 0
        for pull in pulls {
            let status = pull.status()
            #expect(status == nil || status == 200, "a waiting pull was answered \(String(describing: status))")
            if status == 200 { answered += 1 }
        }
        print("SIGTERM with \(count) pulls waiting: exited in \(String(describing: took)); \(answered) answered, the rest closed")
    }
}

/// A pull sent over a plain blocking socket of its own (HTTP/1.1, `Connection: close`), whose
/// answer is read only when asked for: after the server is gone, reads never block.
struct RawPull: Sendable {
    let descriptor: Int32

    static func send(port: Int, path: String, token: String) throws -> RawPull {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerProcessError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw ServerProcessError("connect() to port \(port) failed: errno \(errno)")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n".utf8)
        let written = request.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == request.count else {
            Glibc.close(descriptor)
            throw ServerProcessError("write() of a pull sent \(written) of \(request.count) bytes")
        }
        return RawPull(descriptor: descriptor)
    }

    /// The answer's status code, or nil when the connection closed without one (reads to the end).
    func status() -> Int? {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        let line = String(decoding: answer.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self).split(separator: " ")
        guard line.count >= 2, line[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(line[1])
    }

    func close() { Glibc.close(descriptor) }
}
