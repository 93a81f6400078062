import EventLog
import Foundation

/// Opens the parts of a store the commands need.
enum StoreAccess {
    /// The event log of the store; refuses a folder that holds no store for read-only commands.
    static func openLog(_ options: StoreOptions) throws -> EventLog {
        try EventLog(path: options.logPath)
    }

    /// Projection checks for `verify` (filled in by the projections issue).
    static func verifyModels(_ options: StoreOptions, log: EventLog, deep: Bool) async throws -> [String] {
        []
    }
}
