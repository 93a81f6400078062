import ChronicleTestSupport
import Foundation

/// A PostgreSQL cluster of a test's own: `initdb` into a temporary folder (as the `postgres`
/// user when the tests run as root, as PostgreSQL requires), started on a free 127.0.0.1
/// port with its socket in that folder, stopped and removed by ``stop()``. It never touches
/// a server someone started by hand. Debian's `postgresql` package provides the binaries
/// (`tools/test` installs it when missing).
struct PostgresCluster: Sendable {
    let directory: String
    let port: Int
    /// Server settings beyond the tests' defaults, `name=value` (`-c` options).
    var settings: [String] = []

    /// A URL for the cluster's `postgres` database, as user `postgres` (trust auth on loopback).
    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// The folder of the newest installed PostgreSQL's programs.
    static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let newest = versions.compactMap(Int.init).max() else {
            throw ClusterError("PostgreSQL is not installed (no \(root)/*/bin): apt-get install postgresql, or run tools/test")
        }
        return "\(root)/\(newest)/bin"
    }

    /// - parameter settings: server settings, `name=value`, e.g. `default_transaction_isolation=serializable`.
    static func start(settings: [String] = []) async throws -> PostgresCluster {
        let bin = try binaries()
        let directory = try TemporaryFolder("pg").path
        let asRoot = geteuid() == 0
        if asRoot { try await run(["/bin/chown", "postgres", directory], asPostgres: false) }
        let data = directory + "/data"
        do {
            // A copy of one initdb'd template (owner kept): initdb for every cluster costs a
            // second and a half of CPU, which timing-sensitive tests running beside feel.
            try await run(["/bin/cp", "-a", try await Template.shared.path(bin: bin), data], asPostgres: false)
            for _ in 0..<5 {
                let cluster = PostgresCluster(directory: directory, port: try freePort(), settings: settings)
                do {
                    try await cluster.startServer()
                    return cluster
                } catch {
                    continue   // the port was taken between finding it and binding it: another one
                }
            }
            throw ClusterError("PostgreSQL did not start: \((try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "")")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// One `initdb` per PostgreSQL version and user, kept in the temporary folder and reused
    /// by every cluster of every test run (made under a temporary name, then renamed into place,
    /// so a run never sees half of one).
    actor Template {
        static let shared = Template()
        private var ready: String?

        func path(bin: String) async throws -> String {
            if let ready { return ready }
            let version = (bin as NSString).deletingLastPathComponent.split(separator: "/").last.map(String.init) ?? "pg"
            let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("chronicle-pg-template-\(version)-uid\(geteuid())")
            if !FileManager.default.fileExists(atPath: path + "/PG_VERSION") {
                let asRoot = geteuid() == 0
                let building = path + "-\(UUID().uuidString.prefix(8))"
                try FileManager.default.createDirectory(atPath: building, withIntermediateDirectories: true)
                if asRoot { try await run(["/bin/chown", "postgres", building], asPostgres: false) }
                try await run(["\(bin)/initdb", "-D", building, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync"],
                              asPostgres: asRoot)
                if rename(building, path) != 0 { try? FileManager.default.removeItem(atPath: building) }   // another run won
            }
            ready = path
            return path
        }
    }

    /// Starts the server on the cluster's port (again, after ``stopServer()``).
    func startServer() async throws {
        let options = (["-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"]
                       + settings.map { "-c \($0)" }).joined(separator: " ")
        try await Self.run(["\(try Self.binaries())/pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-o", options,
                            "-w", "-t", "60", "start"], asPostgres: geteuid() == 0)
    }

    /// Stops the server at once, keeping its data (``startServer()`` brings it back).
    func stopServer() async throws {
        try await Self.run(["\(try Self.binaries())/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"],
                           asPostgres: geteuid() == 0)
    }

    /// What the server logged (errors included) so far.
    func serverLog() -> String {
        (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
    }

    /// Everything the cluster's `postgres` database holds, as `pg_dump` writes it (schema and rows).
    func dump() async throws -> String {
        try await Self.run(["\(try Self.binaries())/pg_dump", "-h", directory, "-p", "\(port)", "-U", "postgres", "postgres"],
                           asPostgres: geteuid() == 0)
    }

    /// Stops the server at once and removes its folder.
    func stop() async {
        if let bin = try? Self.binaries() {
            _ = try? await Self.run(["\(bin)/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"],
                                    asPostgres: geteuid() == 0)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` with a cluster of its own, stopped afterwards whatever happens.
    static func with<T>(settings: [String] = [], _ body: (PostgresCluster) async throws -> T) async throws -> T {
        let cluster = try await start(settings: settings)
        do {
            let result = try await body(cluster)
            await cluster.stop()
            return result
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// Runs a program to its end on a thread of its own (never blocking the tests' shared
    /// threads); throws with its output when it fails.
    ///
    /// `posix_spawn` and `waitpid`, not Foundation's `Process`: `pg_ctl start` leaves a server
    /// running that inherits the descriptors, and `Process` did not see `runuser` exit then.
    /// The output goes to a file (a pipe would stay open while the server runs).
    @discardableResult
    static func run(_ arguments: [String], asPostgres: Bool) async throws -> String {
        let command = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let outputPath = NSTemporaryDirectory() + "chronicle-pg-output-\(UUID().uuidString)"
                    defer { try? FileManager.default.removeItem(atPath: outputPath) }
                    var actions = posix_spawn_file_actions_t()
                    posix_spawn_file_actions_init(&actions)
                    defer { posix_spawn_file_actions_destroy(&actions) }
                    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                    // Nothing else of this process's: the server pg_ctl starts would otherwise hold
                    // the tests' files, sockets and pipes (a pipe never reaching its end) and count
                    // them against its own descriptors. glibc has closefrom for spawn since 2.34,
                    // not exported to Swift without _GNU_SOURCE.
                    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
                        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
                        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
                    }
                    var cArguments = command.map { strdup($0) } + [nil]
                    defer { for pointer in cArguments { free(pointer) } }
                    var pid = pid_t()
                    let spawned = posix_spawn(&pid, command[0], &actions, nil, &cArguments, environ)
                    guard spawned == 0 else { throw ClusterError("cannot start \(command[0]): error \(spawned)") }
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                    let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
                    guard exited, code == 0 else {
                        throw ClusterError("\(arguments.first ?? "?") failed (status \(status)): \(text)")
                    }
                    return text
                })
            }.start()
        }
    }

    /// A loopback port nobody listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ClusterError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    struct ClusterError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
