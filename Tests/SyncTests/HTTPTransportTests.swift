@testable import ChronicleSync
import ChronicleWire
import ChronicleLog
import Foundation
import Testing

/// Both ways the sync client sends requests, against a real server on loopback: the
/// platform's default (AsyncHTTPClient on Linux) and URLSession (Apple platforms' default,
/// which builds here too). What the retry rules read must not depend on which one ran.
@Suite("The sync client's HTTP transports", .timeLimit(.minutes(5)))
struct HTTPTransportTests {
    enum Transport: String, CaseIterable, CustomTestStringConvertible {
        case platform, urlSession

        var testDescription: String { rawValue }

        func make(timeout: Duration) -> any HTTPTransport {
            switch self {
            case .platform: SyncClient.platformTransport(requestTimeout: timeout)
            case .urlSession: URLSessionTransport(requestTimeout: timeout)
            }
        }
    }

    static func client(_ transport: Transport, _ url: URL, token: String? = "token-a", timeout: Duration = .seconds(10)) throws -> SyncClient {
        try SyncClient(remote: url, token: token, requestTimeout: timeout, transport: transport.make(timeout: timeout))
    }

    @Test("the platform's default: AsyncHTTPClient where it is linked (Linux), URLSession elsewhere")
    func platformDefault() {
        let transport = SyncClient.platformTransport(requestTimeout: .seconds(1))
        #if canImport(AsyncHTTPClient)
        #expect(transport is NIOHTTPTransport)
        #else
        #expect(transport is URLSessionTransport)
        #endif
    }

    @Test("a batch is acknowledged and a page read back; an error status comes with its message", arguments: Transport.allCases)
    func roundTrip(transport: Transport) async throws {
        let events = try await ServerTests.events(3)
        try await withServerAndStore { server, _, _ in
            let client = try Self.client(transport, server.url)
            defer { client.invalidate() }
            guard case .answered(let acknowledgement) = await client.push(HTTP.pushBody(events), count: 3) else {
                Issue.record("the push was not acknowledged")
                return
            }
            #expect(acknowledgement == .init(accepted: 3, duplicates: 0, lastPosition: 3))
            guard case .answered(let page) = await client.pull(after: 1, limit: 10) else {
                Issue.record("the pull was not answered")
                return
            }
            #expect(page.events.map(\.id) == events.suffix(2).map(\.id))

            let stranger = try Self.client(transport, server.url, token: "nope")
            defer { stranger.invalidate() }
            guard case .failed(let error, _) = await stranger.push(HTTP.pushBody(events), count: 3) else {
                Issue.record("an unknown token was acknowledged")
                return
            }
            #expect(error.status == 401)
            #expect(!error.isRetryable)
        }
    }

    @Test("nobody listening: a connection failure, at once, that the retry rules retry", arguments: Transport.allCases)
    func refused(transport: Transport) async throws {
        // Bound but not listening, and held for the test: no other test can take the port and
        // listen there (a port bound and released could be, and a connection would then hang).
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        // A deadline far above the test's own time: a refusal, not the deadline, must end the request.
        let client = try Self.client(transport, URL(string: "http://127.0.0.1:\(port)")!, timeout: .seconds(100))
        defer { client.invalidate() }
        guard case .failed(let error, _) = await client.pull(after: 0, limit: 1) else {
            Issue.record("a closed port answered")
            return
        }
        #expect(error == .transport(code: URLError.cannotConnectToHost.rawValue, message: error.description))
        #expect(error.description.contains("cannot connect to 127.0.0.1:\(port)"))
        #expect(error.isRetryable)
    }

    @Test("deadlines that fall as refused requests fail: every request ends, none hangs (URLSession's cancellation raced its failure)",
          arguments: Transport.allCases)
    func deadlineRacingFailure(transport: Transport) async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let url = URL(string: "http://127.0.0.1:\(closed.port)")!
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let deadline = Duration.microseconds(Int.random(in: 0...3_000, using: &generator))
            let client = try SyncClient(remote: url, token: "token-a", requestTimeout: deadline,
                                        transport: transport.make(timeout: deadline))
            defer { client.invalidate() }
            guard case .failed(let error, _) = await client.pull(after: 0, limit: 1) else {
                Issue.record("a closed port answered")
                return
            }
            #expect(error.isRetryable, "\(error)")
        }
    }

    @Test("a server that takes the request and never answers: timed out at the client's deadline, retryable", arguments: Transport.allCases)
    func silentServer(transport: Transport) async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let client = try Self.client(transport, URL(string: "http://127.0.0.1:\(listener.port)")!, timeout: .milliseconds(800))
        defer { client.invalidate() }
        guard case .failed(let error, _) = await client.pull(after: 0, limit: 1) else {
            Issue.record("a silent server answered")
            return
        }
        #expect(error == .transport(code: URLError.timedOut.rawValue, message: error.description))
        #expect(error.description.contains("within 800 ms") || error.description.contains("timed out"), "\(error)")
        #expect(error.isRetryable)
    }
}

/// A loopback socket that listens and never answers: the kernel completes connections into
/// its backlog, so a client connects, sends its request and waits.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            _ = Glibc.close(descriptor)
            throw PostgresCluster.ClusterError("cannot listen on loopback")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}

/// A loopback port bound by this process and not listening: connecting to it is refused at once.
final class ClosedPort: Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw SyncError.storage("cannot bind a loopback port") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func release() { close(fd) }
}
