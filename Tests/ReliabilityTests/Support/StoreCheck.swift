@_spi(Operator) import Chronicle
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

/// The checks a store must pass after any crash: the log verifies, every acknowledged
/// append is in it, and the stored entities, once caught up, hold exactly what a fold of the
/// log and a fresh rebuild give.
enum StoreCheck {
    /// Opens the store at `path` in this process (and closes it again), runs every check.
    static func afterCrash(_ path: String, acknowledged: [DomainAck], _ context: String) async throws {
        let store = try ChronicleStore(directory: path, backgroundProjections: false,
                                       logOptions: .init(checkHeadOnOpen: true))
        do {
            try await check(store, acknowledged: acknowledged, context)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    static func check(_ store: ChronicleStore, acknowledged: [DomainAck], _ context: String) async throws {
        let log = store.log
        let report = try log.verify()
        #expect(report.isIntact, "\(context): verify: \(String(describing: report.problem))")

        // Every acknowledged append, at its version, with its type.
        for (stream, acks) in Dictionary(grouping: acknowledged, by: \.stream) {
            let stored = Dictionary(try log.read(stream: stream).map { ($0.version, $0.type) }, uniquingKeysWith: { a, _ in a })
            for ack in acks {
                #expect(stored[ack.version] == ack.type,
                        "\(context): acknowledged \(ack.type) at version \(ack.version) of \(stream) is missing")
            }
        }

        // The stored entities catch up to the log's head, and then show what a fold of the
        // whole log in memory (`ModelReplay`, a second implementation of the merge) gives …
        try await store.refresh()
        let head = try log.head()
        let states = store.entityStates
        let position = try states.position()
        #expect(position == head, "\(context): entities at \(position), log at \(head)")
        let snapshot = try Replay.snapshot(log: log, until: head)
        #expect(try await store.users() == snapshot.users, "\(context): users differ from the log")
        #expect(try await store.todos() == snapshot.todos, "\(context): todos differ from the log")
        #expect(try await store.stats() == snapshot.stats, "\(context): stats differ from the log")
        let problems = try ModelStatesVerifier.problems(path: store.directory + "/entities", model: store.model, log: log, deep: true)
        #expect(problems.isEmpty, "\(context): \(problems)")

        // … and byte for byte what a rebuild from scratch writes.
        let caughtUp = try states.contents()
        _ = try await store.rebuild()
        #expect(try states.contents() == caughtUp, "\(context): the caught-up entities differ from a rebuild")
    }
}
