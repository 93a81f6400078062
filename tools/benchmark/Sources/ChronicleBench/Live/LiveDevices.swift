import AsyncHTTPClient
import ChronicleWire
import Foundation
import NIOCore

/// The other devices of a live-sync run, as the server sees them: each a loop of pulls, either
/// waiting on the server (`wait=25`, asked again as soon as it answers) or, as before live
/// sync, asking every 2 s. They hold connections and server memory as real devices do,
/// without a store each (a thousand stores would measure the client machine, not the server).
enum LiveDevices {
    /// One client for all of them, with room for a connection each.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 4000)
        configuration.timeout = .init(connect: .seconds(30), read: .seconds(120))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// How a device learns of new events.
    enum Mode: String, Sendable {
        /// A pull that waits on the server for its next commit (`sync run`'s default now).
        case wait
        /// A pull every 2 s (`sync run`'s default before live sync).
        case poll
    }

    /// Pulls from `base` as a device in `mode` does, until cancelled.
    static func run(_ mode: Mode, base: URL, token: String) async {
        var after: UInt64 = 0
        if mode == .poll {
            // Devices started at different times poll out of step.
            try? await Task.sleep(for: .milliseconds(Int.random(in: 0..<2000)))
        }
        while !Task.isCancelled {
            let wait = mode == .wait ? "&wait=25" : ""
            if let last = try? await pull(base, token: token, after: after, query: wait) {
                after = last
            } else {
                try? await Task.sleep(for: .milliseconds(200))   // a failed pull: back off a little
                continue
            }
            if mode == .poll { try? await Task.sleep(for: .seconds(2)) }
        }
    }

    /// One pull; returns the page's last position.
    static func pull(_ base: URL, token: String, after: UInt64, query: String) async throws -> UInt64 {
        var request = HTTPClientRequest(url: base.absoluteString + "/v1/events?after=\(after)&limit=1000" + query)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, timeout: .seconds(90))
        let body = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else { throw BenchError.child("a pull answered \(response.status.code)") }
        return try WireEvent.decodePage(Data(body.readableBytesView)).lastPosition
    }

    /// How many pulls wait on the server at `base` now (its `chronicle_pulls_waiting`).
    static func waitingPulls(_ base: URL) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: base.absoluteString + "/metrics"), timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        for line in text.split(separator: "\n") where line.hasPrefix("chronicle_pulls_waiting ") {
            return Int(Double(line.dropFirst("chronicle_pulls_waiting ".count)) ?? 0)
        }
        return 0
    }

    /// A process's resident memory, in bytes (`VmRSS` of `/proc/PID/status`).
    static func residentBytes(of pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }
}
