@testable import ChronicleSync
import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import ChronicleServer
import Testing

@Suite("Pulling from the reference server", .timeLimit(.minutes(10)))
struct PullTests {
    @Test("an event's schema version travels through push, the server and pull, and stays in the puller's record")
    func schemaVersionsTravel() async throws {
        try await withServerAndStore { server, a, _ in
            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            try await a.append([StreamAppend(stream: "tag-1", events: [NewEvent(type: "TagCreated", schemaVersion: 2, data: Data(#"{"name":"A"}"#.utf8))]),
                                StreamAppend(stream: "todo-1", events: [NewEvent(type: "TodoCreated", data: Data("{}".utf8))])])
            let engineA = try SyncEngine.quiet(log: a, configuration: .testing(server.url, token: "token-a"))
            let engineB = try SyncEngine.quiet(log: b, configuration: .testing(server.url, token: "token-a"))
            #expect(try await engineA.push().accepted == 2)
            #expect(try await engineB.pull().stored == 2)
            #expect(try TestLog.all(b).map(\.schemaVersion) == [2, 1])
            #expect(try await server.http.pullAll(token: "token-a").map(\.schemaVersion) == [2, 1])
        }
    }

    @Test("two stores: each pulls the other's events once, its own come back appending nothing, pulled events are never pushed")
    func twoStoresExchangeEvents() async throws {
        try await withServerAndStore { server, a, _ in
            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            let fromA = try await TestLog.appendEvents(a, count: 30, streams: 3)
            let fromB = try await TestLog.appendEvents(b, count: 10, streams: 2, start: 100)
            let engineA = try SyncEngine.quiet(log: a, configuration: .testing(server.url, token: "token-a", batchSize: 7))
            let engineB = try SyncEngine.quiet(log: b, configuration: .testing(server.url, token: "token-a", batchSize: 7))
            #expect(try await engineA.push().accepted == 30)
            #expect(try await engineB.push().accepted == 10)

            let pulledByB = try await engineB.pull()
            #expect(pulledByB.outcome == .complete)
            #expect(pulledByB.received == 40)
            #expect(pulledByB.stored == 30, "B's own 10 events came back and must not be stored again")
            #expect(pulledByB.pulledPosition == 40)
            #expect(Set(try TestLog.all(b).map(\.id)) == Set(fromA + fromB))
            #expect(try b.head() == 40)

            // Nothing of B's own is pending: the pulled events are not pushed back.
            let again = try await engineB.push()
            #expect(again.requests == 0)
            #expect(again.pending == 0)
            #expect(try await server.http.pullAll(token: "token-a").count == 40)

            let pulledByA = try await engineA.pull()
            #expect(pulledByA.stored == 10)
            #expect(try TestLog.all(a).map(\.id) == fromA + fromB)
            // The pulled events keep what the origin gave them.
            let served = try await server.http.pullAll(token: "token-a")
            let byID = Dictionary(uniqueKeysWithValues: try TestLog.all(a).map { ($0.id, $0.wireForm) })
            #expect(served.allSatisfy { byID[$0.id] == $0.wireForm })

            // Caught up: one request, nothing new.
            let idle = try await engineA.pull()
            #expect(idle.received == 0 && idle.stored == 0 && idle.requests == 1)
            #expect(try a.verify().isIntact)
            #expect(try b.verify().isIntact)
        }
    }

    @Test("pages of 7 over 50 events; the cursor is kept in the store, so a new engine resumes after it")
    func pagingAndAPersistentCursor() async throws {
        try await withServerAndStore { server, source, _ in
            try await TestLog.appendEvents(source, count: 50)
            let pusher = try SyncEngine.quiet(log: source, configuration: .testing(server.url, token: "token-a"))
            _ = try await pusher.push()

            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            var configuration = SyncConfiguration.testing(server.url, token: "token-a")
            configuration.pullLimit = 7
            let first = try await SyncEngine.quiet(log: b, configuration: configuration).pull()
            #expect(first.pages == 8)
            #expect(first.stored == 50)
            #expect(try SyncEngine.status(of: b).pulledPosition == 50)

            let more = try await TestLog.appendEvents(source, count: 5, start: 50)
            _ = try await pusher.push()
            let second = try await SyncEngine.quiet(log: b, configuration: configuration).pull()
            #expect(second.received == 5)
            #expect(second.stored == 5)
            #expect(Array(try TestLog.all(b).map(\.id).suffix(5)) == more)
        }
    }

    @Test("a page the server cut at its bytes of data is not taken for the end: the pull goes on to the last event")
    func pagesCutByTheirData() async throws {
        try await withServerAndStore { server, source, _ in
            // 20 events of 1,000,000 bytes of data: a page holds 16 of them (WirePage.maxDataBytes is 16 MiB).
            let memo = String(repeating: "m", count: 1_000_000 - #"{"memo":""}"#.utf8.count)
            for first in stride(from: 0, to: 20, by: 5) {
                try await source.append((first..<first + 5).map { n in
                    StreamAppend(stream: "todo-\(n)", events: [NewEvent(type: "TodoCreated", data: Data(#"{"memo":"\#(memo)"}"#.utf8))])
                })
            }
            let pusher = try SyncEngine.quiet(log: source, configuration: .testing(server.url, token: "token-a", batchSize: 5))
            #expect(try await pusher.push().accepted == 20)
            let reply = try await server.http.request("GET", "v1/events?after=0&limit=1000", token: "token-a")
            let page = try WireEvent.decodePage(reply.body)
            #expect(page.events.map(\.position) == Array(1...16), "the server cuts a page at 16 MiB of data")
            #expect(page.mayContinue(limit: 1000))

            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            let pulled = try await SyncEngine.quiet(log: b, configuration: .testing(server.url, token: "token-a")).pull()
            #expect(pulled.outcome == .complete)
            #expect(pulled.pages == 2, "16 events, then the last 4")
            #expect(pulled.stored == 20)
            #expect(try SyncEngine.status(of: b).pulledPosition == 20)
            #expect(try TestLog.all(b).map(\.data) == (try TestLog.all(source).map(\.data)))
        }
    }

    @Test("local events written before a pull stay pending and are pushed; the pulled ones between them are not")
    func pendingEventsSurviveAPull() async throws {
        try await withServerAndStore { server, a, _ in
            try await TestLog.appendEvents(a, count: 30, streams: 3)
            _ = try await SyncEngine.quiet(log: a, configuration: .testing(server.url, token: "token-a")).push()

            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            let offline = try await TestLog.appendEvents(b, count: 5, start: 200)
            let engine = try SyncEngine.quiet(log: b, configuration: .testing(server.url, token: "token-a", batchSize: 4))
            _ = try await engine.pull()
            let later = try await TestLog.appendEvents(b, count: 3, start: 300)
            #expect(try b.head() == 38)

            let pushed = try await engine.push()
            #expect(pushed.outcome == .complete)
            #expect(pushed.accepted == 8)
            #expect(pushed.duplicates == 0, "a pulled event was pushed back")
            #expect(pushed.pending == 0)
            #expect(pushed.lastAckedPosition == 38)
            let served = try await server.http.pullAll(token: "token-a")
            #expect(served.count == 38)
            #expect(Array(served.map(\.id).suffix(8)) == offline + later)
        }
    }

    @Test("a 503 with Retry-After, then a page: retried by the push rules, the events stored once")
    func retriesAFailedPull() async throws {
        try await withFaultServerAndStore(faults: [], pullFaults: [.status(503, retryAfter: "0"), .status(500)]) { server, source, _ in
            try await TestLog.appendEvents(source, count: 12)
            _ = try await SyncEngine.quiet(log: source, configuration: .testing(server.url, token: "token-f")).push()
            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            let recorder = WaitRecorder()
            let engine = try SyncEngine.quiet(log: b, configuration: .testing(server.url, token: "token-f"), sleep: recorder.sleep)
            let summary = try await engine.pull()
            #expect(summary.outcome == .complete)
            #expect(summary.requests == 3)
            #expect(summary.failures.map(\.status) == [503, 500])
            #expect(summary.waits == [.zero, .milliseconds(2)])
            #expect(summary.stored == 12)
            #expect(try SyncEngine.status(of: b).lastError == nil)
        }
    }

    @Test("a page that breaks the protocol stops the pull and stores nothing of it",
          arguments: [
              // Positions must follow the cursor (0) and increase.
              #"{"events":[EVENT2,EVENT1],"lastPosition":2}"#,
              #"{"events":[EVENT1,EVENT1],"lastPosition":1}"#,
              // lastPosition before the page's last event.
              #"{"events":[EVENT1,EVENT2],"lastPosition":1}"#,
              // Not a page at all.
              #"{"events":"none","lastPosition":0}"#,
              "<html>proxy login</html>",
          ])
    func refusesABrokenPage(_ template: String) async throws {
        let events = try await Self.twoServedEvents()
        let body = template.replacingOccurrences(of: "EVENT1", with: EventJSON.encode(events[0], includePosition: true))
            .replacingOccurrences(of: "EVENT2", with: EventJSON.encode(events[1], includePosition: true))
        try await withFaultServerAndStore(faults: [], pullFaults: [.body(body)]) { server, b, _ in
            let engine = try SyncEngine.quiet(log: b, configuration: .testing(server.url, token: "token-f"))
            let summary = try await engine.pull()
            guard case .stopped(.invalidResponse) = summary.outcome else {
                Issue.record("expected a stop on an invalid response, got \(summary.outcome)")
                return
            }
            #expect(try b.head() == 0)
            #expect(try SyncEngine.status(of: b).pulledPosition == 0)
        }
    }

    @Test("a page with more events than asked is refused")
    func refusesAnOversizedPage() async throws {
        let events = try await Self.twoServedEvents()
        let body = Data(WirePage(events: events, lastPosition: 2).encode())
        #expect(throws: SyncError.self) { try SyncClient.page(in: body, after: 0, limit: 1) }
        #expect(try SyncClient.page(in: body, after: 0, limit: 2).events.count == 2)
        #expect(throws: SyncError.self) { try SyncClient.page(in: body, after: 1, limit: 2) }
    }

    @Test("the stored sync state of an earlier release (no pulledPosition) still reads, starting the pull at 0")
    func toleratesAnOlderSyncState() throws {
        let old = #"{"ackedPosition":12,"attempts":1,"lastError":"HTTP 503","lastErrorIsPermanent":false,"remote":"http://x"}"#
        let state = try JSONDecoder().decode(SyncState.self, from: Data(old.utf8))
        #expect(state.ackedPosition == 12)
        #expect(state.attempts == 1)
        #expect(state.lastError == "HTTP 503")
        #expect(state.pulledPosition == 0)
        let partial = try JSONDecoder().decode(SyncState.self, from: Data("{}".utf8))
        #expect(partial == SyncState())
    }

    /// Two events as the reference server serves them (positions 1 and 2).
    static func twoServedEvents() async throws -> [RecordedEvent] {
        try await withServerAndStore { server, log, _ in
            try await TestLog.appendEvents(log, count: 2)
            _ = try await SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a")).push()
            return try await server.http.pullAll(token: "token-a")
        }
    }
}
