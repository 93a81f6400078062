@_spi(Operator) import Chronicle
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

/// The checks a store must pass after any crash: the log verifies, every acknowledged
/// append is in it, and the read models, once caught up, hold exactly what a fold of the
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

        // The models catch up to the log's head, and then equal a fold of the whole log …
        try await store.refresh()
        let head = try log.head()
        let models = store.models
        let checkpoint = try models.checkpoint()
        #expect(checkpoint == head, "\(context): models at \(checkpoint), log at \(head)")
        let snapshot = try Replay.snapshot(log: log, until: head)
        #expect(try models.users() == snapshot.users, "\(context): users differ from the log")
        #expect(try models.todos() == snapshot.todos, "\(context): todos differ from the log")
        #expect(try models.stats() == snapshot.stats, "\(context): stats differ from the log")
        let problems = try ModelVerifier.problems(log: log, models: models, deep: true)
        #expect(problems.isEmpty, "\(context): \(problems)")

        // … and byte for byte what a rebuild from scratch writes.
        let caughtUp = try ProjectionName.allCases.map { try models.contents(of: $0) }
        _ = try await Rebuild.run(log: log, models: models)
        let rebuilt = try ProjectionName.allCases.map { try models.contents(of: $0) }
        #expect(caughtUp == rebuilt, "\(context): the caught-up models differ from a rebuild")
    }
}
