@_spi(Operator) import Chronicle
import ChronicleReferee
import ChronicleRefereeSupport
import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleProjections
import Testing

extension Reliability {
    /// Decisions that span entities hold against every process writing the store: what a
    /// command read is part of its append's condition (SPEC §6).
    @Suite("Decisions across processes", .timeLimit(.minutes(10)))
    struct CrossProcessDecisionTests {
        @Test("8 processes add tag names equal up to case at once: exactly one wins, 50 rounds")
        func uniqueTagNames() async throws {
            try await TemporaryFolder.with("tag-race") { root in
                let store = root + "/store"
                let racers = try await Racers.start(8, store: store)
                for round in 0..<50 {
                    // Case variants, and in odd rounds spellings only full case folding equates.
                    let base = round.isMultiple(of: 2) ? "Work\(round)" : "Straße\(round)"
                    let names = round.isMultiple(of: 2)
                        ? [base, base.lowercased(), base.uppercased(), "wORK\(round)", "WoRk\(round)", "woRK\(round)", "WORk\(round)", "wOrK\(round)"]
                        : [base, "STRASSE\(round)", "strasse\(round)", "STRAßE\(round)", "Strasse\(round)", "sTRASSE\(round)", "straße\(round)", "StraSSe\(round)"]
                    let outcomes = try await racers.ask(names.map { "tag-add \($0) #00AA00" })
                    let winners = outcomes.filter { $0.hasPrefix("ok ") }
                    #expect(winners.count == 1, "round \(round): \(outcomes)")
                    for outcome in outcomes where !outcome.hasPrefix("ok ") {
                        #expect(outcome.hasPrefix("rejected a tag named ") && outcome.hasSuffix(" already exists"),
                                "round \(round): \(outcome)")
                    }
                }
                racers.stop()
                try await racers.waitForExit()

                let chronicle = try ChronicleStore(directory: store, backgroundProjections: false)
                try await chronicle.refresh()
                let tags = try await chronicle.tags()
                #expect(tags.count == 50)
                #expect(Set(tags.map { ChronicleTodoDomain.Tag.foldedName($0.name) }).count == 50)
                #expect(try chronicle.log.head() == 50, "a refused add appended something")
                let expected = try RefereeState.fold(log: chronicle.log)
                #expect(expected.tags.count == 50 && expected.tagRenamed.isEmpty, "the referee sees a collision: \(expected.tagRenamed)")
                #expect(try await RefereeState.shown(by: chronicle).differences(from: expected, device: "the store") == [])
                #expect(try ModelStatesVerifier.problems(path: store + "/entities", model: chronicle.model, log: chronicle.log, deep: true).isEmpty)
                await chronicle.close()
            }
        }

        @Test("a user deleted while 4 processes add and move the user's todos: no live todo of a deleted user, 50 rounds")
        func cascadeAgainstConcurrentTodos() async throws {
            try await TemporaryFolder.with("cascade-race") { root in
                let store = root + "/store"
                let racers = try await Racers.start(5, store: store)
                var deletions = 0
                for round in 0..<50 {
                    let created = try await racers.ask(["user-add Owner\(round)"])[0]
                    let user = try #require(created.hasPrefix("ok ") ? String(created.dropFirst(3)) : nil, "\(created)")
                    let day = round.isMultiple(of: 2) ? "2026-12-01" : "2026-12-02"
                    // The deleter goes last, so that it races the fillers' first commands; every
                    // fifth round first, so that it still wins some races on a machine so loaded
                    // that fillers sent first always commit before it.
                    let deleter = round % 5 == 4 ? 0 : 4
                    var commands = Array(repeating: "fill \(user) \(day) 40", count: 4)
                    commands.insert("delete-user \(user)", at: deleter)
                    let outcomes = try await racers.ask(commands)
                    for (index, outcome) in outcomes.enumerated() where index != deleter {
                        #expect(outcome.hasPrefix("filled "), "round \(round): \(outcomes)")
                    }
                    // A deletion that lost every race to the fillers (a clear conflict) is sent again.
                    var deleted = outcomes[deleter]
                    if deleted.hasPrefix("conflict ") { deleted = try await racers.ask(["delete-user \(user)"])[0] }
                    #expect(deleted == "ok", "round \(round): \(outcomes)")
                    if outcomes[deleter] == "ok" { deletions += 1 }
                }
                // The race must be run, not always avoided: the deletion has to win its first command
                // in some rounds. How many moves with the machine's load (45–49 of 50 alone, 2–40 with
                // the whole suite running in parallel, none once on a machine running at half speed,
                // before the deleter went first in some rounds), so only none fails.
                #expect(deletions > 0, "the deletion never won its first command: 50 conflicts")
                racers.stop()
                try await racers.waitForExit()

                let chronicle = try ChronicleStore(directory: store, backgroundProjections: false)
                let log = chronicle.log
                // The referee's fold of the log (docs' rules, no product code): every user deleted,
                // so no todo of theirs is live, and no day counts one.
                let expected = try RefereeState.fold(log: log)
                #expect(expected.users.isEmpty)
                #expect(expected.todos.isEmpty, "\(expected.todos.count) live todos belong to a deleted user")
                #expect(expected.stats.isEmpty)
                try await chronicle.refresh()
                #expect(try await chronicle.todos().isEmpty)
                #expect(try await chronicle.stats().isEmpty, "stats count todos that are not live")
                #expect(try ModelStatesVerifier.problems(path: store + "/entities", model: chronicle.model, log: log, deep: true).isEmpty)
                #expect(try log.verify().isIntact)
                await chronicle.close()
            }
        }
    }
}

/// `ChronicleTorture racer` processes on one store, asked one command each at the same moment.
/// A racer left behind by a failed test exits when this process ends (its stdin closes).
private struct Racers: Sendable {
    let children: [ChildProcess]

    static func start(_ count: Int, store: String) async throws -> Racers {
        let torture = try Products.torture()
        var children: [ChildProcess] = []
        for _ in 0..<count { children.append(try await ChildProcess(torture, ["racer", "--store", store])) }
        for child in children {
            #expect(try await child.firstLine(what: "a racer's ready") { $0 == "ready" } != nil, "\(child.standardErrorText)")
        }
        return Racers(children: children)
    }

    /// Sends `commands[i]` to racer i, all before reading any answer; returns the answers in order.
    func ask(_ commands: [String]) async throws -> [String] {
        for (child, command) in zip(children, commands) { try child.send(command) }
        var answers: [String] = []
        for child in children.prefix(commands.count) {
            let answer = try await child.firstLine(timeout: .seconds(60), what: "a racer's answer") { _ in true }
            answers.append(try #require(answer, "a racer exited: \(child.standardErrorText)"))
        }
        return answers
    }

    func stop() {
        for child in children { try? child.send("quit") }
    }

    func waitForExit() async throws {
        for child in children {
            let exit = try await withTimeout(.seconds(60), "a racer's exit") { await child.waitForExit() }
            #expect(exit == .init(status: 0, wasSignalled: false), "\(child.standardErrorText)")
        }
    }
}
