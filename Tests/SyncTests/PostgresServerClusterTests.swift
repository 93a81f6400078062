import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import Testing

/// Several `chronicle serve --database` processes on one PostgreSQL database are one server
/// (SPEC §8): pushes through any of them, duplicates re-sent through others, pollers reading
/// small pages from any of them, one process killed with SIGKILL mid-push.
@Suite("Servers on one PostgreSQL database", .timeLimit(.minutes(10)))
struct PostgresServerClusterTests {
    static let token = "cluster-token"

    /// Starts `serve --database` on a free port; returns the process and its URL.
    static func serve(_ url: String) async throws -> (ChildProcess, HTTP) {
        let process = try await Executables.start(Executables.chronicle, ["serve", "--database", url, "--port", "0", "--token", token,
                                                                          "--log-level", "error"])
        guard let line = try await process.firstLine(where: { $0.hasPrefix("listening on ") }),
              let address = line.split(separator: " ").dropFirst(2).first, let base = URL(string: String(address)) else {
            process.terminate()
            let exit = await process.waitForExit()
            throw PostgresCluster.ClusterError("serve did not start (\(exit)): \(process.standardErrorText)")
        }
        return (process, HTTP(base: base))
    }

    static func events(_ range: Range<Int>, writer: Int) -> [RecordedEvent] {
        range.map { n in
            RecordedEvent(position: 0, id: UUID(), stream: "w\(writer)", version: UInt64(n + 1), type: "T",
                          timestampMilliseconds: Int64(n), origin: "writer-\(writer)", data: Data(#"{"n":\#(n)}"#.utf8))
        }
    }

    @Test("3 processes: concurrent pushes with duplicates through other processes, pollers continuing at their cursor, one process SIGKILLed: positions exactly 1…N, each id once, nothing acknowledged lost")
    func threeProcesses() async throws {
        try await PostgresCluster.with { cluster in
            var servers: [(ChildProcess, HTTP)] = []
            for _ in 0..<3 { servers.append(try await Self.serve(cluster.url)) }
            defer { for (process, _) in servers { process.terminate() } }
            let https = servers.map(\.1)
            let victim = servers[2].0

            let writers = 4, batches = 12, batchSize = 5
            let acknowledged = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var mine: [UUID] = []
                        for batch in 0..<batches {
                            let events = Self.events(batch * batchSize..<(batch + 1) * batchSize, writer: writer)
                            let body = HTTP.pushBody(events, device: "writer-\(writer)")
                            // Round robin; a process that is gone sends the batch to the next one.
                            var stored = false
                            for attempt in 0..<6 where !stored {
                                let http = https[(writer + batch + attempt) % https.count]
                                guard let reply = try? await http.request("POST", "v1/events", token: Self.token, body: body),
                                      reply.status == 200 else { continue }
                                stored = true
                                // Re-sent through another process, as after a lost answer: stores nothing.
                                if let again = try? await https[(writer + batch + attempt + 1) % 2].request(
                                    "POST", "v1/events", token: Self.token, body: body), again.status == 200 {
                                    #expect(again.object["accepted"] as? Int == 0)
                                    #expect(again.object["duplicates"] as? Int == batchSize)
                                }
                            }
                            #expect(stored, "writer \(writer) batch \(batch) found no server")
                            if stored { mine += events.map(\.id) }
                            if writer == 0, batch == batches / 2 { victim.kill() }
                        }
                        return mine
                    }
                }
                // Pollers: small pages from the surviving processes; every page starts right after its cursor.
                for poller in 0..<2 {
                    group.addTask {
                        var cursor: UInt64 = 0
                        let total = UInt64(writers * batches * batchSize)
                        while cursor < total {
                            let reply = try await https[poller].request("GET", "v1/events?after=\(cursor)&limit=3", token: Self.token)
                            #expect(reply.status == 200)
                            let page = try WireEvent.decodePage(reply.body)
                            if let first = page.events.first {
                                #expect(first.position == cursor + 1, "a page skipped: after \(cursor) came \(first.position)")
                                #expect(page.events.map(\.position) == Array(first.position..<first.position + UInt64(page.events.count)))
                                cursor = page.events.last!.position
                            } else {
                                await Task.yield()
                            }
                        }
                        return []
                    }
                }
                var all: [UUID] = []
                for try await ids in group { all += ids }
                return all
            }

            let stored = try await https[0].pullAll(token: Self.token, pageSize: 7)
            #expect(stored.map(\.position) == Array(1...UInt64(stored.count)), "positions exactly 1…N")
            #expect(Set(stored.map(\.id)).count == stored.count, "each id once")
            #expect(Set(acknowledged).isSubset(of: Set(stored.map(\.id))), "nothing acknowledged lost")
            #expect(stored.count == writers * batches * batchSize)
            #expect(await victim.waitForExit() == .init(status: SIGKILL, wasSignalled: true))
        }
    }

    @Test("SIGTERM mid-push: the process finishes the requests it took (never a 5xx), closes the database last and exits 0; nothing acknowledged lost")
    func gracefulShutdown() async throws {
        try await PostgresCluster.with { cluster in
            let (server, http) = try await Self.serve(cluster.url)
            defer { server.terminate() }

            let writers = 4, batchSize = 200
            let (acknowledged, statuses) = try await withThrowingTaskGroup(of: ([UUID], [Int]).self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var mine: [UUID] = [], statuses: [Int] = []
                        // Pushes until the server is gone (a refused or closed connection).
                        for batch in 0... {
                            let events = Self.events(batch * batchSize..<(batch + 1) * batchSize, writer: writer)
                            guard let reply = try? await http.request("POST", "v1/events", token: Self.token,
                                                                      body: HTTP.pushBody(events, device: "writer-\(writer)")) else { break }
                            statuses.append(reply.status)
                            if reply.status == 200 { mine += events.map(\.id) }
                            // The others are mid-request now.
                            if writer == 0, batch == 2 { server.terminate() }
                        }
                        return (mine, statuses)
                    }
                }
                var ids: [UUID] = [], statuses: [Int] = []
                for try await (mine, seen) in group {
                    ids += mine
                    statuses += seen
                }
                return (ids, statuses)
            }

            let exit = await server.waitForExit()
            #expect(exit == .init(status: 0, wasSignalled: false), "\(exit): \(server.standardErrorText)")
            #expect(statuses.allSatisfy { $0 == 200 }, "answers during shutdown: \(statuses)")
            #expect(acknowledged.count >= 3 * batchSize)

            let (after, afterHTTP) = try await Self.serve(cluster.url)
            defer { after.terminate() }
            let stored = try await afterHTTP.pullAll(token: Self.token, pageSize: 1000)
            #expect(stored.map(\.position) == Array(1...UInt64(stored.count)), "positions exactly 1…N")
            #expect(Set(acknowledged).isSubset(of: Set(stored.map(\.id))), "nothing acknowledged lost")
        }
    }
}
