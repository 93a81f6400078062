import ArgumentParser
import ChronicleLog
import Foundation

/// `chronicle verify`: checksums, hash chain, positions, and the read model against the log.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check checksums, the hash chain, positions and the read model's position; exit 0 only when intact.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Also fold the log in memory and compare every stored entity, index entry and aggregate row.") var deep = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let log = try StoreAccess.openLog(store, checkHead: false)
        var report = try log.verify { checked, head in
            if head > 50_000 { CLIOutput.progress("verify: \(checked)/\(head) events") }
        }
        if report.problem == nil {
            report.otherProblems += try await StoreAccess.verifyModels(store, log: log, deep: deep)
        }
        if json {
            var object: [String: Any] = ["intact": report.isIntact, "events": report.eventsChecked, "head": report.head,
                                         "headHash": report.headHash]
            if let problem = report.problem {
                object["problem"] = ["position": problem.position, "cause": problem.cause.rawValue, "detail": problem.detail]
            }
            object["otherProblems"] = report.otherProblems
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            CLIOutput.line(String(decoding: data, as: UTF8.self))
        } else if let problem = report.problem {
            CLIOutput.line("verify: FAILED at position \(problem.position) (\(problem.cause.rawValue)): \(problem.detail)")
            CLIOutput.line("checked \(report.eventsChecked) of \(report.head) events before the problem")
        } else {
            CLIOutput.line("verify: \(report.isIntact ? "OK" : "FAILED"): \(report.eventsChecked) \(report.eventsChecked == 1 ? "event" : "events"), positions 1…\(report.head) gap-free, checksums and hash chain intact")
            CLIOutput.line("head hash: \(report.headHash)")
            for problem in report.otherProblems { CLIOutput.line("problem: \(problem)") }
        }
        if !report.isIntact {
            if let problem = report.problem {
                CLIOutput.error("store is damaged at position \(problem.position): \(problem.cause.rawValue): \(problem.detail)")
            } else {
                CLIOutput.error(report.otherProblems.first ?? "store is damaged")
            }
            throw ExitCode(2)
        }
    }
}
