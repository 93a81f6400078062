import ChronicleTestSupport
import Foundation

/// A `chronicle serve` process of the test's own, on a loopback port it keeps across restarts,
/// so that it can be SIGKILLed mid-run and started again where clients (and a proxy) expect it.
actor ServerProcess {
    /// `serve`'s arguments but the port: the storage (`--data` or `--database-url`) and tokens.
    let arguments: [String]
    /// The port picked at the first start and kept by every restart.
    nonisolated let port: Int
    private var child: ChildProcess?

    nonisolated var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    nonisolated var http: HTTP { HTTP(base: url) }

    private init(arguments: [String], port: Int, child: ChildProcess) {
        self.arguments = arguments
        self.port = port
        self.child = child
    }

    /// Starts `chronicle serve` with `arguments` on a free port.
    static func start(_ arguments: [String]) async throws -> ServerProcess {
        let (child, port) = try await launch(arguments, port: 0)
        return ServerProcess(arguments: arguments, port: port, child: child)
    }

    /// Kills the server with SIGKILL (no cleanup of its own runs) and waits until it is gone.
    func kill() async {
        guard let child else { return }
        child.kill()
        _ = await child.waitForExit()
        self.child = nil
    }

    /// Starts the server again on its port (a port just freed may take a moment to bind).
    func restart() async throws {
        await kill()
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                child = try await Self.launch(arguments, port: port).child
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? ServerProcessError("the server did not start again on port \(port)")
    }

    /// Stops the server (SIGTERM, then SIGKILL if it lingers).
    func stop() async {
        guard let child else { return }
        child.terminate()
        let exited = try? await withTimeout(.seconds(30), "the server's exit") { await child.waitForExit() }
        if exited == nil { child.kill(); _ = await child.waitForExit() }
        self.child = nil
    }

    /// Asks the server to stop (SIGTERM) and returns how long it took to exit, or nil when it
    /// still ran after `limit` (it is SIGKILLed then).
    func terminate(within limit: Duration) async -> Duration? {
        guard let child else { return .zero }
        let started = ContinuousClock.now
        child.terminate()
        let exited = try? await withTimeout(limit, "the server's exit") { await child.waitForExit() }
        if exited == nil { child.kill(); _ = await child.waitForExit() }
        self.child = nil
        return exited == nil ? nil : ContinuousClock.now - started
    }

    /// A gauge or counter of the server's `GET /metrics` (0 when not reported yet).
    nonisolated func metric(_ name: String) async throws -> Double {
        let reply = try await http.request("GET", "metrics", token: nil)
        for line in reply.text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? 0
        }
        return 0
    }

    private static func launch(_ arguments: [String], port: Int) async throws -> (child: ChildProcess, port: Int) {
        let child = try await ChildProcess(try Products.chronicle(),
                                           ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--log-level", "error"] + arguments)
        let line = try await child.firstLine(what: "the server's address") { $0.hasPrefix("listening on ") }
        guard let line, let address = line.split(separator: " ").dropFirst(2).first,
              let bound = URL(string: String(address))?.port else {
            child.kill()
            _ = await child.waitForExit()
            throw ServerProcessError("the server did not start: \(child.standardErrorText)")
        }
        return (child, bound)
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
