import Chronicle
import ChronicleLog
import Foundation
import ChronicleProjections

/// Opens the parts of a store the commands need.
enum StoreAccess {
    /// The event log of the store.
    ///
    /// Every command but `verify` opens it with `checkHead`: a store whose last record is
    /// damaged is refused before anything reads or writes it (`verify` must open it to say where).
    static func openLog(_ options: StoreOptions, checkHead: Bool = true) throws -> EventLog {
        try StoreFolder.prepare(options.path)
        return OpenedLogs.register(try EventLog(path: options.logPath, options: logOptions(checkHead: checkHead)))
    }

    static func logOptions(checkHead: Bool = true) -> EventLog.Options {
        EventLog.Options(checkHeadOnOpen: checkHead)
    }

    /// The log, the read models (`<store>/models`) and a runner that applies on demand
    /// (a CLI process is short-lived: read commands call `runner.catchUp()` first).
    static func openModels(_ options: StoreOptions) throws -> (log: EventLog, models: ReadModels, runner: ProjectionRunner) {
        let log = try openLog(options)
        let models = try ReadModels(path: options.path + "/models")
        try noticeModelsAhead(models, log)
        return (log, models, ProjectionRunner(log: log, models: models, upgradeProgress: upgradeProgress()))
    }

    /// Shows on stderr (a terminal only) the rebuild of models built by another version of
    /// their projection, which the first read after an upgrade of Chronicle runs.
    static func upgradeProgress() -> @Sendable (RebuildProgress) -> Void {
        let line = ProgressLine("upgrading read models")
        return { progress in
            line.show(done: progress.done, total: progress.total)
            if progress.done >= progress.total { line.finish() }
        }
    }

    /// Says, in one line on stderr, that the models are ahead of the log and will be rebuilt
    /// before anything is read from them (the projection runner does that when it catches up).
    static func noticeModelsAhead(_ models: ReadModels, _ log: EventLog) throws {
        let ahead = try models.projectionsAhead(ofLogHead: log.head)
        guard !ahead.isEmpty else { return }
        CLIOutput.note("notice: the read models (\(ahead.map(\.rawValue).joined(separator: ", "))) are ahead of the log "
                       + "(at positions it does not have: a copy of a live store?); rebuilding them from the log")
    }

    /// Projection checks for `verify`: checkpoints within the log, and with `deep` the stored
    /// models against the log folded in memory.
    static func verifyModels(_ options: StoreOptions, log: EventLog, deep: Bool) async throws -> [String] {
        var problems: [String] = []
        // Models never opened have nothing to check, and verify must not create them.
        if FileManager.default.fileExists(atPath: options.path + "/models/data.mdb") {
            let models = try ReadModels(path: options.path + "/models")
            problems += try ModelVerifier.problems(log: log, models: models, deep: deep)
        }
        // A declared model's entities, checked by the newest model the store recorded (the
        // one that folded them; states folded by another are folded again at the next open).
        if let record = try log.modelRecords().last, let model = try? ChronicleModel(record: Data(record.bytes)) {
            problems += try ModelStatesVerifier.problems(path: options.path + "/entities", model: model, log: log, deep: deep)
        }
        return problems
    }
}
