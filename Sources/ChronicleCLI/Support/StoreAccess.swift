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

    /// Shows on stderr (a terminal only) the first fold of stored entities that are behind
    /// the log from its start, which the first read after an upgrade of Chronicle runs.
    static func upgradeProgress() -> @Sendable (RebuildProgress) -> Void {
        let line = ProgressLine("upgrading read models")
        return { progress in
            line.show(done: progress.done, total: progress.total)
            if progress.done >= progress.total { line.finish() }
        }
    }

    /// Says, in one line on stderr, that the stored entities are ahead of the log and will be
    /// rebuilt before anything is read from them (their catch-up does that).
    static func noticeEntitiesAhead(_ states: ModelStates) throws {
        guard try states.isAheadOfLog() else { return }
        CLIOutput.note("notice: the stored entities are ahead of the log (at positions it does not have: a copy of a "
                       + "live store?); rebuilding them from the log")
    }

    /// Checks of the read model for `verify`: the stored entities (`entities/`) folded no
    /// further than the log, and with `deep` every entity, index entry and aggregate row
    /// against the log folded in memory, by the newest model the store recorded (the one that
    /// folded them; states folded by another are folded again at the next open).
    static func verifyModels(_ options: StoreOptions, log: EventLog, deep: Bool) async throws -> [String] {
        guard let record = try log.modelRecords().last, let model = try? ChronicleModel(record: Data(record.bytes)) else { return [] }
        return try ModelStatesVerifier.problems(path: options.path + "/entities", model: model, log: log, deep: deep)
    }
}
