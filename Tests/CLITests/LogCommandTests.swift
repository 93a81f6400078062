import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import Testing

/// `chronicle log` and `chronicle verify`, run as the built executable on a real store.
@Suite(.timeLimit(.minutes(10)))
struct LogCommandTests {
    /// A store with 6 events: types TodoCreated/TodoCompleted on streams todo-1, todo-2, user-1.
    private func makeStore(_ store: TestStore) async throws -> [RecordedEvent] {
        try await store.withLog { log throws in
            try await log.append(to: "user-1", events: [makeEvent("UserCreated", #"{"name":"Ann \"A\"","age":30}"#)])
            try await log.append(to: "todo-1", events: [makeEvent("TodoCreated", #"{"title":"Milk"}"#)])
            try await log.append(to: "todo-2", events: [makeEvent("TodoCreated", #"{"title":"Bread"}"#)])
            try await log.append(to: "todo-1", events: [makeEvent("TodoCompleted", "{}")])
            try await log.append(to: "todo-2", events: [makeEvent("TodoCompleted", "{}")])
            try await log.append(to: "todo-1", events: [makeEvent("TodoReopened", "{}")])
            return try log.read()
        }
    }

    private func chronicle(_ arguments: [String]) async throws -> CommandOutput {
        try await runCommand(try Products.chronicle(), arguments)
    }

    /// The events of a `--json` array or `--ndjson` lines, checked against the SPEC shape.
    private func decode(_ json: String) throws -> [[String: Any]] {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let events = try #require(value as? [[String: Any]])
        for event in events {
            #expect(Set(event.keys) == ["position", "id", "stream", "version", "type", "timestamp", "origin", "data"])
        }
        return events
    }

    @Test func logJSONPrintsOneArrayOfEveryEvent() async throws {
        try await TestStore.with { store in
            let stored = try await makeStore(store)
            let output = try await chronicle(["log", "--store", store.root.path, "--json"])
            #expect(output.exit.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.count == 1)
            let events = try decode(output.standardOutput.joined(separator: "\n"))
            #expect(events.map { $0["position"] as? Int } == [1, 2, 3, 4, 5, 6])
            #expect(events.map { $0["id"] as? String } == stored.map { $0.id.uuidString.lowercased() })
            #expect(events.map { $0["version"] as? Int } == [1, 1, 1, 2, 2, 3])
            let first = try #require(events.first)
            #expect(first["stream"] as? String == "user-1")
            #expect(first["type"] as? String == "UserCreated")
            #expect(first["origin"] as? String == stored[0].origin)
            #expect(first["timestamp"] as? String == Timestamp.format(milliseconds: stored[0].timestampMilliseconds))
            let data = try #require(first["data"] as? [String: Any])
            #expect(data["name"] as? String == #"Ann "A""#)
            #expect(data["age"] as? Int == 30)
            #expect(output.standardError.isEmpty)
        }
    }

    @Test func logNDJSONPrintsOneEventPerLine() async throws {
        try await TestStore.with { store in
            let stored = try await makeStore(store)
            let output = try await chronicle(["log", "--store", store.root.path, "--ndjson", "--after", "2", "--limit", "3"])
            #expect(output.exit.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.count == 3)
            let events = try output.standardOutput.flatMap { try decode("[\($0)]") }
            #expect(events.map { $0["position"] as? Int } == [3, 4, 5])
            #expect(output.standardOutput == stored[2..<5].map { EventJSON.encode($0) })
        }
    }

    @Test func logFiltersByStream() async throws {
        try await TestStore.with { store in
            _ = try await makeStore(store)
            let output = try await chronicle(["log", "--store", store.root.path, "--json", "--stream", "todo-1"])
            #expect(output.exit.status == 0, "\(output.standardError)")
            let events = try decode(output.standardOutput.joined())
            #expect(events.map { $0["position"] as? Int } == [2, 4, 6])
            #expect(events.allSatisfy { $0["stream"] as? String == "todo-1" })
            let limited = try await chronicle(["log", "--store", store.root.path, "--json", "--stream", "todo-1", "--after", "2", "--limit", "1"])
            #expect(try decode(limited.standardOutput.joined()).map { $0["position"] as? Int } == [4])
            let none = try await chronicle(["log", "--store", store.root.path, "--json", "--stream", "todo-9"])
            #expect(none.exit.status == 0)
            #expect(try decode(none.standardOutput.joined()).isEmpty)
        }
    }

    @Test func logFiltersByType() async throws {
        try await TestStore.with { store in
            _ = try await makeStore(store)
            let output = try await chronicle(["log", "--store", store.root.path, "--json", "--type", "TodoCompleted"])
            #expect(output.exit.status == 0, "\(output.standardError)")
            let events = try decode(output.standardOutput.joined())
            #expect(events.map { $0["position"] as? Int } == [4, 5])
            let both = try await chronicle(["log", "--store", store.root.path, "--ndjson", "--type", "TodoCreated", "--stream", "todo-2"])
            #expect(both.standardOutput.count == 1)
            #expect(try decode("[\(both.standardOutput.joined())]").first?["position"] as? Int == 3)
        }
    }

    @Test func plainLogIsATableWithOneRowPerEvent() async throws {
        try await TestStore.with { store in
            _ = try await makeStore(store)
            let output = try await chronicle(["log", "--store", store.root.path])
            #expect(output.exit.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.count == 7)
            #expect(output.standardOutput.first?.hasPrefix("POSITION") == true)
            #expect(output.standardOutput.dropFirst().map { $0.split(separator: " ").first.map(String.init) } == ["1", "2", "3", "4", "5", "6"])
        }
    }

    @Test func verifyPassesOnAnIntactStore() async throws {
        try await TestStore.with { store in
            _ = try await makeStore(store)
            let output = try await chronicle(["verify", "--store", store.root.path])
            #expect(output.exit.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.first?.hasPrefix("verify: OK") == true)
            #expect(output.standardError.isEmpty)
        }
    }

    @Test func verifyFailsOnADamagedStoreNamingThePosition() async throws {
        try await TestStore.with { store in
            _ = try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in
                try raw.modifyRecord(at: 4) { record in record[RecordLayout.dataRange(of: record).lowerBound] ^= 0x20 }
            }
            let output = try await chronicle(["verify", "--store", store.root.path])
            #expect(output.exit.status != 0)
            #expect(!output.exit.wasSignalled)
            #expect(output.errorLines.count == 1)
            let line = try #require(output.errorLines.first)
            #expect(line.hasPrefix("error: "))
            #expect(line.contains("position 4"))
            #expect(line.contains("checksum"))
        }
    }

    @Test func verifyReportsAGap() async throws {
        try await TestStore.with { store in
            _ = try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in try raw.deleteRecord(at: 3) }
            let output = try await chronicle(["verify", "--store", store.root.path, "--json"])
            #expect(output.exit.status != 0)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.joined().utf8)) as? [String: Any])
            #expect(report["intact"] as? Bool == false)
            let problem = try #require(report["problem"] as? [String: Any])
            #expect(problem["position"] as? Int == 3)
            #expect(problem["cause"] as? String == "gap")
            #expect(output.errorLines.count == 1)
            #expect(output.errorLines.first?.hasPrefix("error: ") == true)
        }
    }
}
