import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleLMDB
@testable import ChronicleProjections
import Testing

@Suite("verifying the models against the log", .timeLimit(.minutes(10)))
struct ModelVerifierTests {
    @Test("intact models pass, shallow and deep")
    func intact() async throws {
        try await withStore { store in
            var workload = Workload(test: "ModelVerifierTests.1")
            for _ in 0..<300 {
                let events = workload.next()
                if !events.isEmpty { try await store.append(events) }
            }
            try await store.runner.catchUp()
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: false).isEmpty)
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: true).isEmpty)
            // Models behind the log are fine: they compare at their own checkpoint.
            try await store.append([.userCreated(id: UUID(), name: "Late", age: 3)])
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: true).isEmpty)
        }
    }

    @Test("a tampered model is reported by --deep only")
    func tampered() async throws {
        try await withStore { store in
            let id = UUID()
            try await store.append([.userCreated(id: id, name: "Ada", age: 36)])
            try await store.append([.todoCreated(id: UUID(), title: "T", deadline: day("2026-01-01"), userId: id, memo: nil)])
            try await store.runner.catchUp()
            // Change the stored age behind the projection's back.
            try store.models.write { txn in
                let users = try store.models.active(.users, txn)[0]
                var value: [UInt8] = []
                ModelCodec.encode(User(id: id, name: "Ada", age: 99), into: &value)
                try txn.put(users, key: withUnsafeBytes(of: id.uuid) { Array($0) }, value: value)
                let stats = try store.models.active(.dailyStats, txn)[0]
                var key: [UInt8] = []
                key.appendBigEndian(ModelCodec.dayKey(day("2026-01-02")))
                ModelCodec.encodeStat(total: 5, completed: 0, into: &value)
                try txn.put(stats, key: key, value: value)
            }
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: false).isEmpty)
            let problems = try ModelVerifier.problems(log: store.log, models: store.models, deep: true)
            #expect(problems.count == 2, "\(problems)")
            #expect(problems.first?.contains("projection 'users' differs") == true, "\(problems)")
            #expect(problems.first?.contains("age 99") == true, "\(problems)")
            #expect(problems.last?.contains("projection 'daily-stats' differs") == true, "\(problems)")
            // A rebuild repairs it.
            _ = try await Rebuild.run(log: store.log, models: store.models)
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: true).isEmpty)
        }
    }

    @Test("a checkpoint past the log's head is reported")
    func checkpointBeyondHead() async throws {
        try await withStore { store in
            try await store.append([.userCreated(id: UUID(), name: "Ada", age: 36)])
            try await store.append([.userCreated(id: UUID(), name: "Bob", age: 37)])
            try await store.runner.catchUp()
            // The same models next to a shorter log.
            let other = try EventLog(path: store.directory + "/other-log", options: .init(noSync: true))
            try await other.append(to: DomainEvent.userStream(UUID()), events: [
                NewEvent(type: "UserCreated", data: Data(#"{"age":1,"name":"X"}"#.utf8)),
            ])
            let problems = try ModelVerifier.problems(log: other, models: store.models, deep: false)
            #expect(problems.count == ProjectionName.allCases.count, "every projection is past the head: \(problems)")
            #expect(problems.first == "projection 'users' is at position 2 but the log ends at 1; run 'chronicle rebuild'")
            other.close()
        }
    }
}
